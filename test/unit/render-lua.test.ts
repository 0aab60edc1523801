// The Lua hooks the renderer puts in proxied locations (ADR 0001): round robin runs only the balancer; ewma adds
// log_by_lua; no location runs rewrite_by_lua; a backend without endpoints goes to the 503 server. The request id
// (ADR 0015) is one set_by_lua per rendered server, in its rewrite phase; there is no http-level rewrite hook.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { buildModel } from '../../src/model/build.js';
import { renderNginxConf } from '../../src/render/nginx-conf.js';
import { fixtureCases, loadSnapshot } from '../support/fixtures.js';
import type { ModelOptions } from '../../src/model/input.js';
import type { RenderOptions } from '../../src/render/nginx-conf.js';

const FIXTURE_MODEL_OPTIONS: ModelOptions = {
  controllerClass: 'portico.dev/ingress-controller',
  ingressClass: 'portico',
  watchIngressWithoutClass: false,
  defaultBackendService: undefined,
  loadBalance: 'round_robin',
};
const FIXTURE_RENDER_OPTIONS: RenderOptions = {
  workDir: '/var/lib/portico',
  luaDir: '/usr/share/portico/lua',
  httpPort: 80,
  httpsPort: 443,
  statusPort: 10246,
  defaultServerPort: 8181,
  listenAddress: '',
  user: undefined,
  workerProcesses: 'auto',
};

const basic = fixtureCases('render').find((d) => d.endsWith('basic')) ?? join('test', 'fixtures', 'render', 'basic');

function locations(conf: string): string[] {
  return conf
    .split('\n        location ')
    .slice(1)
    .map((l) => l.slice(0, l.indexOf('\n        }')));
}

const HTTP_HOOKS = /^ {4}(rewrite|log|access)_by_lua.*$/gm;

test("round robin: proxied locations run no Lua besides the balancer and their server's request id", () => {
  const conf = renderNginxConf(buildModel(loadSnapshot(basic), FIXTURE_MODEL_OPTIONS), FIXTURE_RENDER_OPTIONS).text;
  assert.deepEqual(
    locations(conf).filter((l) => /rewrite_by_lua|log_by_lua|access_by_lua/.test(l)),
    [],
  );
  assert.deepEqual(conf.match(HTTP_HOOKS), null);
  // every server with a proxied location sets the id before its locations run
  const servers = conf.split('\n    server {').slice(1);
  const proxying = servers.filter((s) => s.includes('proxy_pass http://portico_balancer;'));
  assert.ok(proxying.length > 0);
  for (const s of proxying) assert.ok(s.includes('\n        set_by_lua_block $portico_request_id { return require("portico.request_id").value() }'), s.slice(0, 200));
  assert.match(conf, /map \$http_x_request_id \$req_id \{ default \$http_x_request_id; '' \$portico_request_id; \}/);
  assert.ok(locations(conf).some((l) => l.includes('proxy_pass http://portico_balancer;')));
});

test('ewma: every proxied location feeds responses back with log_by_lua, and only those', () => {
  const model = buildModel(loadSnapshot(basic), { ...FIXTURE_MODEL_OPTIONS, loadBalance: 'ewma' });
  const conf = renderNginxConf(model, FIXTURE_RENDER_OPTIONS).text;
  assert.deepEqual(
    locations(conf).filter((l) => l.includes('rewrite_by_lua')),
    [],
  );
  for (const l of locations(conf)) {
    const proxied = l.includes('proxy_pass http://portico_balancer;');
    const known = model.upstreams.some((u) => l.includes(`set $portico_backend "${u.name}";`));
    assert.equal(l.includes('log_by_lua_block { require("portico.balancer").log() }'), proxied && known, l);
  }
});

test('the 503 server listens on a unix socket in the work directory, and the balancer is told where', () => {
  const conf = renderNginxConf(buildModel(loadSnapshot(basic), FIXTURE_MODEL_OPTIONS), { ...FIXTURE_RENDER_OPTIONS, workDir: '/w/' }).text;
  assert.match(conf, /listen "unix:\/w\/unavailable\.sock";\n {8}access_log off;\n {8}location \/ \{ return 503; \}/);
  assert.match(conf, /init_worker\(\{ unavailable = "unix:\/w\/unavailable\.sock" \}\)/);
});

test('hooks follow the balancer precedence: affinity (rewrite), then hashBy (none), then ewma (log)', async () => {
  const { luaHooks } = await import('../../src/render/server-block.js');
  const base = { name: 'ns_web_80', service: { kind: 'Service', namespace: 'ns', name: 'web' }, servicePort: 80, endpoints: [] };
  const affinity = { mode: 'balanced', name: 'route' } as unknown as NonNullable<Parameters<typeof luaHooks>[0]>['affinity'];
  const up = (o: Record<string, unknown>): Parameters<typeof luaHooks>[0] => ({ ...base, loadBalance: 'round_robin', hashBy: '', affinity: null, tuned: false, ...o });
  assert.deepEqual(luaHooks(up({})), []);
  assert.deepEqual(luaHooks(undefined), []);
  assert.deepEqual(luaHooks(up({ hashBy: '$request_uri', loadBalance: 'ewma' })), []);
  assert.match(luaHooks(up({ loadBalance: 'ewma' })).join(), /log_by_lua_block \{ require\("portico.balancer"\).log\(\) \}/);
  const sticky = luaHooks(up({ affinity, hashBy: '$request_uri', loadBalance: 'ewma' })).join();
  assert.match(sticky, /rewrite_by_lua_block \{ require\("portico.balancer"\).rewrite\(\) \}/);
  assert.doesNotMatch(sticky, /log_by_lua/);
  // Tuned by an annotation: both hooks, whatever the algorithm, so switching it needs no reload.
  assert.equal(luaHooks(up({ tuned: true })).length, 2);
  assert.equal(luaHooks(up({ tuned: true, hashBy: '$request_uri' })).length, 2);
});
