// End to end, real nginx (docs/adr/0016): a refused annotation that protects nothing is left out and
// the Ingress is served, with a Warning naming it; one whose absence would weaken a protection (an allow list, auth)
// keeps the Ingress off (fail closed), or in its last valid form. The message says the verdict once.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startBackend, type Backend } from '../support/backends.js';
import { backendObjects, manifestFolder, type ManifestDir } from '../support/manifests.js';
import { ingress } from '../support/objects.js';
import { get, startPortico, until, who, type Running } from '../support/portico.js';

const P = 'nginx.ingress.kubernetes.io';

const site = (name: string, annotations: Record<string, string>) => ingress(name, { host: `${name}.test`, className: 'portico', annotations, paths: [{ path: '/', type: 'Prefix', service: 'app' }] });

/** The Warning lines (pino level 40) that name this Ingress and annotation. */
function warnings(p: Running, name: string, annotation: string): string[] {
  return p.output.filter((l) => l.includes('"level":40') && l.includes(`default/${name}`) && l.includes(`${P}/${annotation}`));
}

void describe('a refused annotation: served without it, unless it protects something', () => {
  let app: Backend;
  let dir: ManifestDir;
  let portico: Running;

  before(async () => {
    app = await startBackend('app');
    dir = await manifestFolder();
    await dir.write('backends.json', backendObjects('app', app.port));
    await dir.write('ingresses.json', [
      site('legacy', { [`${P}/secure-backends`]: 'true' }),
      site('body', { [`${P}/proxy-body-size`]: '1m; include /etc/passwd' }),
      site('cookie', { [`${P}/affinity`]: 'cookie', [`${P}/session-cookie-domain`]: 'example.com' }),
      site('walled', { [`${P}/whitelist-source-range`]: '10.0.0.0/8; allow all' }),
      site('auth', { [`${P}/auth-url`]: 'http://169.254.169.254/latest' }),
      site('guarded', { [`${P}/whitelist-source-range`]: '10.0.0.0/8' }),
    ]);
    portico = await startPortico(['--manifests', dir.dir]);
    await until('served', async () => (await who(portico.http, 'legacy.test', '/')) === 'app', 20_000);
  });

  after(async () => {
    await portico?.stop();
    await app?.close();
    await dir?.remove();
  });

  void it('secure-backends: "true" (ignored by ingress-nginx since 0.21) is served, with one Warning naming it', async () => {
    assert.equal(await who(portico.http, 'legacy.test', '/'), 'app');
    const lines = warnings(portico, 'legacy', 'secure-backends');
    assert.ok(lines.length > 0, 'a Warning names the annotation');
    assert.ok(
      lines.every((l) => l.includes('backend-protocol') && !l.includes('not served')),
      lines.join('\n'),
    );
  });

  void it('other refused values that protect nothing are left out: the Ingress is served without them, with a Warning', async () => {
    for (const [name, annotation] of [
      ['body', 'proxy-body-size'],
      ['cookie', 'session-cookie-domain'],
    ] as const) {
      assert.equal(await who(portico.http, `${name}.test`, '/'), 'app', name);
      assert.ok(
        warnings(portico, name, annotation).some((l) => l.includes('served without this annotation')),
        `${name}: ${portico.output.filter((l) => l.includes(annotation)).join('\n')}`,
      );
    }
  });

  void it('a broken allow list or auth-url fails closed: the Ingress is not served, the Warning says so once', async () => {
    for (const [name, annotation] of [
      ['walled', 'whitelist-source-range'],
      ['auth', 'auth-url'],
    ] as const) {
      assert.equal((await get(portico.http, `${name}.test`, '/')).status, 404, name);
      const lines = warnings(portico, name, annotation);
      assert.ok(lines.length > 0, `${name}: a Warning`);
      for (const l of lines) {
        assert.equal(l.split('not served').length - 1, 1, `${name}: the verdict once: ${l}`);
      }
    }
  });

  void it('an allow list changed to a broken value keeps the last valid form: 127.0.0.1 stays outside 10.0.0.0/8', async () => {
    assert.equal((await get(portico.http, 'guarded.test', '/')).status, 403);
    const from = portico.output.length;
    await dir.write('ingresses.json', [site('guarded', { [`${P}/whitelist-source-range`]: '0.0.0.0/0; allow all' }), site('later', {})]);
    await until('the change applied', async () => (await who(portico.http, 'later.test', '/')) === 'app', 20_000);
    assert.equal((await get(portico.http, 'guarded.test', '/')).status, 403, 'still the last valid allow list');
    assert.ok(portico.output.slice(from).some((l) => l.includes('default/guarded') && l.includes('keeps its last valid form')));
  });
});
