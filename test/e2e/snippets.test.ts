// Snippets allowed by the operator, through real nginx: simple directives are served; a brace hidden in quotes, a
// comment or an escape is refused with its reason, and only its own Ingress goes unserved.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startBackend, type Backend } from '../support/backends.js';
import { backendObjects, manifestFolder, type ManifestDir } from '../support/manifests.js';
import { ingress } from '../support/objects.js';
import { get, startPortico, until, type Running } from '../support/portico.js';

const P = 'nginx.ingress.kubernetes.io';
const ing = (name: string, annotations: Record<string, string>) => ingress(name, { host: `${name}.test`, className: 'portico', annotations, paths: [{ path: '/', type: 'Prefix', service: 'echo' }] });
const BYPASSES: Record<string, string> = {
  quoted: 'return 200 "}"; } location /evil { return 200 owned;',
  escaped: 'return 200 a\\}; } server { listen 8099; return 200 owned;',
  comment: 'add_header X-A b; #\n} location /evil { return 200 owned;',
  cr: 'add_header X-A b;\r\n} location /evil { return 200 owned;',
  include: 'include /etc/passwd;',
};

void describe('snippets with --allow-snippet-annotations (real nginx)', () => {
  let dir: ManifestDir;
  let echo: Backend;
  let portico: Running;

  before(async () => {
    dir = await manifestFolder();
    echo = await startBackend('echo');
    await dir.write('backends.json', backendObjects('echo', echo.port));
    await dir.write('ingresses.json', [
      ing('simple', { [`${P}/configuration-snippet`]: 'add_header X-Snippet yes;\n\tadd_header X-Host $host;', [`${P}/server-snippet`]: 'add_header X-Server yes;' }),
      ing('plain', {}),
      ...Object.entries(BYPASSES).map(([name, text]) => ing(name, { [`${P}/configuration-snippet`]: text })),
    ]);
    portico = await startPortico(['--manifests', dir.dir, '--allow-snippet-annotations', '--annotations-risk-level=Critical']);
    await until('Ingresses served', async () => (await get(portico.http, 'simple.test', '/')).status === 200, 20_000);
  });

  after(async () => {
    await portico.stop();
    await echo.close();
    await dir.remove();
  });

  void it('a snippet of simple directives is served', async () => {
    const r = await get(portico.http, 'simple.test', '/');
    assert.deepEqual([r.status, r.headers['x-snippet'], r.headers['x-host'], r.headers['x-backend']], [200, 'yes', 'simple.test', 'echo']);
    assert.equal((await get(portico.http, 'plain.test', '/')).status, 200);
  });

  void it('each bypass is refused with its reason: its Ingress is not served, nothing it wrote exists', async () => {
    for (const name of Object.keys(BYPASSES)) {
      assert.equal((await get(portico.http, `${name}.test`, '/evil')).status, 404, name);
      assert.ok(
        portico.output.some((l) => l.includes(`Ingress default/${name}`) && l.includes('snippet refused: ')),
        name,
      );
    }
    const conf = await (await fetch(`http://127.0.0.1:${portico.healthz}/debug/config`)).text();
    // Whole tokens: a hash or a random port in nginx.conf may hold the digits 8099 by chance.
    assert.equal(conf.match(/\bowned\b|\/etc\/passwd|\b8099\b/), null);
  });
});
