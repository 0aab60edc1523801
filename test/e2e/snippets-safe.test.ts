// --snippet-mode=safe (the default) through real nginx: real-world snippets (headers added and hidden, CORS by hand, a
// redirect behind a proxy, more_set_headers, a rewrite) are applied once the ConfigMap's allow-snippet-annotations is
// true (ingress-nginx's opt-in), without the Critical risk level that --snippet-mode=any needs; hostile ones are refused with the directive and its line, and only their own Ingress goes unserved.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startBackend, type Backend } from '../support/backends.js';
import { backendObjects, configMap, manifestFolder, type ManifestDir } from '../support/manifests.js';
import { ingress } from '../support/objects.js';
import { get, startPortico, until, type Running } from '../support/portico.js';

const P = 'nginx.ingress.kubernetes.io';
const SNIPPETS: Record<string, string> = {
  headers: 'add_header X-Frame-Options DENY always;\nmore_set_headers "X-Served-By: portico";\nmore_clear_headers X-Backend;\nproxy_set_header X-Tenant blue;',
  cors: 'if ($request_method = OPTIONS) {\n  add_header Access-Control-Allow-Origin "$http_origin" always;\n  return 204;\n}\nadd_header Access-Control-Allow-Origin "$http_origin" always;',
  proto: 'if ($http_x_forwarded_proto != "https") {\n  return 301 https://$host$request_uri;\n}',
  rewrite: 'rewrite ^/old/(.*)$ /new/$1 break;',
};
const HOSTILE: Record<string, [string, string]> = {
  lua: ['content_by_lua_block { ngx.say("owned") }', 'snippet refused'],
  include: ['include /etc/passwd;', 'directive include at line 1'],
  alias: ['add_header X-A b;\nalias /etc/;', 'directive alias at line 2'],
  pass: ['proxy_pass http://127.0.0.1:10246/configuration/backends;', 'directive proxy_pass at line 1'],
  close: ['return 200 "}"; } location /evil { return 200 owned;', 'closes a block the snippet did not open at line 1'],
  comment: ['add_header X-A b; # }\n} location /evil { return 200 owned;', 'closes a block the snippet did not open at line 2'],
};

void describe('safe snippets (real nginx, default --snippet-mode)', () => {
  let dir: ManifestDir;
  let echo: Backend;
  let portico: Running;
  const ing = (name: string, snippet: string) =>
    ingress(name, { host: `${name}.test`, className: 'portico', annotations: { [`${P}/configuration-snippet`]: snippet }, paths: [{ path: '/', type: 'Prefix', service: 'echo' }] });

  before(async () => {
    dir = await manifestFolder();
    echo = await startBackend('echo');
    await dir.write('backends.json', [
      ...backendObjects('echo', echo.port),
      configMap('portico', { 'allow-snippet-annotations': 'true', 'server-snippet': 'add_header X-Admin yes always;', 'http-snippet': 'include /etc/passwd;' }, 'kube-system'),
    ]);
    await dir.write('ingresses.json', [...Object.entries(SNIPPETS).map(([n, s]) => ing(n, s)), ...Object.entries(HOSTILE).map(([n, [s]]) => ing(n, s))]);
    portico = await startPortico(['--manifests', dir.dir, '--configmap', 'kube-system/portico']);
    await until('served', async () => (await get(portico.http, 'headers.test', '/')).status === 200, 20_000);
  });

  after(async () => {
    await portico.stop();
    await echo.close();
    await dir.remove();
  });

  void it('headers added, hidden and sent to the backend', async () => {
    const r = await get(portico.http, 'headers.test', '/');
    assert.deepEqual([r.status, r.headers['x-frame-options'], r.headers['x-served-by'], r.headers['x-backend']], [200, 'DENY', 'portico', undefined]);
    const seen = echo.seen.at(-1);
    assert.deepEqual([seen?.headers['x-tenant'], seen?.headers.host, seen?.headers['x-forwarded-for']], ['blue', 'headers.test', '127.0.0.1']);
    // The ConfigMap's server-snippet: nginx inherits a server's add_header only into locations without their own.
    assert.equal((await get(portico.http, 'rewrite.test', '/')).headers['x-admin'], 'yes');
  });

  void it('CORS by hand, a redirect under if, a rewrite', async () => {
    const pre = await get(portico.http, 'cors.test', '/', { method: 'OPTIONS', headers: { origin: 'https://a.test' } });
    assert.deepEqual([pre.status, pre.headers['access-control-allow-origin']], [204, 'https://a.test']);
    const behind = await get(portico.http, 'proto.test', '/x?y=1', { headers: { 'x-forwarded-proto': 'http' } });
    assert.deepEqual([behind.status, behind.headers.location], [301, 'https://proto.test/x?y=1']);
    assert.equal((await get(portico.http, 'proto.test', '/x', { headers: { 'x-forwarded-proto': 'https' } })).status, 200);
    assert.equal((await get(portico.http, 'rewrite.test', '/old/a/b')).status, 200);
    assert.equal(echo.seen.at(-1)?.url, '/new/a/b');
  });

  void it('each hostile snippet is refused with the directive and its line; nothing it wrote exists', async () => {
    for (const [name, [, why]] of Object.entries(HOSTILE)) {
      assert.equal((await get(portico.http, `${name}.test`, '/evil')).status, 404, name);
      assert.ok(
        portico.output.some((l) => l.includes(`Ingress default/${name}`) && l.includes(why)),
        `${name}: ${why}`,
      );
    }
    assert.ok(
      portico.output.some((l) => l.includes('data.http-snippet') && l.includes('directive include at line 1')),
      'the admin snippet is refused with a Warning',
    );
    const conf = await (await fetch(`http://127.0.0.1:${portico.healthz}/debug/config`)).text();
    assert.ok(!conf.includes('owned') && !conf.includes('/etc/passwd') && !conf.includes('/configuration/backends;'));
  });
});
