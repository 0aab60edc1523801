// Real nginx: portico.router (docs/adr/0014) answers exactly like the reference matcher of src/model/routes.ts on
// generated route tables (fast-check, fixed seed): exact and one-label wildcard hosts, Exact before Prefix, longest
// element-wise prefix, the tiers of ADR 0004, the fallback. The table is made by the renderer that Portico pushes
// (render/route-entries.ts), the answers come from Lua through the status port.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { type Nginx, request, sleep, startNginx } from './harness.js';
import { compileLocations, normalizePath, route, type PathRule } from '../../src/model/routes.js';
import { routesPayload } from '../../src/render/route-entries.js';
import { DEFAULT_TLS_SETTINGS } from '../../src/model/tls-types.js';
import type { Model, Server, Target } from '../../src/model/types.js';

const MATCH_LOCATION = `
        location = /match {
            content_by_lua_block {
                local cjson = require("cjson.safe")
                local router = require("portico.router")
                ngx.req.read_body()
                local out = {}
                for i, c in ipairs(cjson.decode(ngx.req.get_body_data())) do
                    local t = router.match(c[1], c[2])
                    out[i] = t == nil and "-" or (t.found and t.backend or "404")
                end
                ngx.print(cjson.encode(out))
            }
        }`;

const SEGMENTS = ['a', 'ab', 'b', 'a.b', 'c'];
const arbPath = fc.array(fc.constantFrom(...SEGMENTS), { minLength: 0, maxLength: 3 }).chain((segs) => fc.boolean().map((slash) => `/${segs.join('/')}${slash && segs.length > 0 ? '/' : ''}`));
const arbRule = fc.record({ path: arbPath, type: fc.constantFrom<'Exact' | 'Prefix'>('Exact', 'Prefix'), backend: fc.integer({ min: 0, max: 4 }) });
/** Rule hosts: exact names, a wildcard, one exact name under it, and '' (rules without a host). */
const RULE_HOSTS = ['h0.t', 'h1.t', '*.w.t', 'x.w.t', ''];
const REQUEST_HOSTS = ['h0.t', 'h1.t', 'x.w.t', 'y.w.t', 'z.y.w.t', 'w.t', 'other.t', '_'];
const arbTable = fc.record({
  rules: fc.array(fc.record({ host: fc.constantFrom(...RULE_HOSTS), rule: arbRule }), { minLength: 0, maxLength: 24 }),
  fallback: fc.constantFrom<'404' | 'b9'>('404', 'b9'),
});
const arbUri = fc.array(fc.constantFrom(...SEGMENTS, 'abc', ''), { minLength: 0, maxLength: 4 }).map((segs) => `/${segs.join('/')}`);
const arbRequests = fc.array(fc.tuple(fc.constantFrom(...REQUEST_HOSTS), arbUri), { minLength: 1, maxLength: 40 });

const REF = { kind: 'Ingress', namespace: 'default', name: 'gen' } as const;
const target = (backend: string): Target => (backend === '404' ? { kind: 'not-found' } : { kind: 'upstream', upstream: backend, ingress: REF });
const answer = (t: Target | undefined): string => (t === undefined ? '-' : t.kind === 'not-found' ? '404' : t.upstream);

type Table = { rules: { host: string; rule: { path: string; type: 'Exact' | 'Prefix'; backend: number } }[]; fallback: '404' | 'b9' };

/** The model's rule tables per host (the oldest, i.e. first, rule of a host + path + type wins, as in model/build.ts). */
function tablesOf(t: Table): Map<string, PathRule[]> {
  const byHost = new Map<string, Map<string, PathRule>>();
  for (const { host, rule } of t.rules) {
    const path = normalizePath(rule.path, rule.type);
    const m = byHost.get(host) ?? new Map<string, PathRule>();
    const key = `${rule.type} ${path}`;
    if (!m.has(key)) m.set(key, { path, type: rule.type, target: target(`b${rule.backend}`) });
    byHost.set(host, m);
  }
  return new Map([...byHost].map(([h, m]) => [h, [...m.values()]]));
}

function tiersOf(tables: Map<string, PathRule[]>, host: string): PathRule[][] {
  const dot = host.indexOf('.');
  const wild = host.startsWith('*.') || dot < 0 ? undefined : `*${host.slice(dot)}`;
  return [tables.get(host) ?? [], ...(wild !== undefined && tables.has(wild) ? [tables.get(wild) ?? []] : []), tables.get('') ?? []];
}

/** The servers Portico would compile (model/servers.ts, without host ownership), and a Model around them. */
function modelOf(t: Table): Model {
  const tables = tablesOf(t);
  const fallback = target(t.fallback);
  const servers: Server[] = [...tables.keys()]
    .filter((h) => h !== '')
    .sort()
    .map((host) => ({ host, locations: compileLocations(tiersOf(tables, host), fallback) }));
  servers.push({ host: '_', locations: compileLocations([tables.get('') ?? []], fallback) });
  return { servers, upstreams: [], ingresses: [], problems: [], tls: { settings: DEFAULT_TLS_SETTINGS, certificates: [], hosts: [], defaultCertificate: undefined, servers: [], ingresses: {} } };
}

/** What nginx + the Kubernetes rules answer: the server nginx picks (exact name, one-label wildcard, catch-all), then `route`. */
function expected(t: Table, host: string, uri: string): string {
  const tables = tablesOf(t);
  const fallback = target(t.fallback);
  const dot = host.indexOf('.');
  const wild = dot > 0 ? `*${host.slice(dot)}` : undefined;
  const server = tables.has(host) && host !== '' ? host : wild !== undefined && tables.has(wild) ? wild : '';
  const tiers = server === '' ? [tables.get('') ?? []] : tiersOf(tables, server);
  return answer(route(tiers, uri) ?? fallback);
}

void describe('lua router against the reference matcher', () => {
  let nginx: Nginx;

  before(async () => {
    nginx = await startNginx({ workers: 2, httpExtra: '', locations: MATCH_LOCATION });
  });

  after(async () => {
    await nginx.stop();
  });

  const ask = async (cases: readonly (readonly [string, string])[]): Promise<string[]> => {
    const r = await request(nginx.port, '/match', { method: 'POST', body: JSON.stringify(cases) });
    assert.equal(r.status, 200, r.body);
    return JSON.parse(r.body) as string[];
  };

  it('answers no route before a table is pushed', async () => {
    assert.deepEqual(await ask([['h0.t', '/']]), ['-']);
  });

  it('agrees with routes.ts on generated tables and requests (fast-check, seed 18, 150 tables)', async () => {
    await fc.assert(
      fc.asyncProperty(arbTable, arbRequests, async (table, requests) => {
        const model = modelOf(table);
        const hosts = new Set(model.servers.map((s) => s.host));
        const posted = await nginx.post('/configuration/routes', routesPayload(model, hosts, false));
        assert.equal(posted.status, 201, posted.body);
        const got = await ask(requests);
        const want = requests.map(([host, uri]) => expected(table, host, uri));
        assert.deepEqual(got, want, JSON.stringify({ table, requests }));
      }),
      { seed: 18, numRuns: 150 },
    );
  });

  it('agrees with routes.ts when each table after the first arrives as a delta of the hosts that changed (40 sequences)', async () => {
    let seq = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(arbTable, { minLength: 2, maxLength: 4 }), arbRequests, async (tables, requests) => {
        let held: Map<string, string> | undefined;
        for (const table of tables) {
          const model = modelOf(table);
          const payload = routesPayload(model, new Set(model.servers.map((s) => s.host)), false);
          const now = new Map([...Object.entries(payload.hosts).map(([h, e]) => [h, JSON.stringify(e)] as const), ['_', JSON.stringify(payload.default)]]);
          const id = `t${(seq += 1)}`;
          let posted;
          if (held === undefined) posted = await nginx.post(`/configuration/routes?id=${id}`, payload);
          else {
            const delta: { hosts: Record<string, unknown>; default?: unknown } = { hosts: {} };
            for (const [h, e] of now) {
              if (held.get(h) === e) continue;
              if (h === '_') delta.default = payload.default;
              else delta.hosts[h] = payload.hosts[h];
            }
            for (const h of held.keys()) if (!now.has(h)) delta.hosts[h] = null;
            posted = await nginx.post(`/configuration/routes?from=t${seq - 1}&id=${id}`, delta);
          }
          assert.equal(posted.status, 201, posted.body);
          held = now;
          const got = await ask(requests);
          assert.deepEqual(
            got,
            requests.map(([host, uri]) => expected(table, host, uri)),
            JSON.stringify({ table, requests }),
          );
        }
        const whole = await nginx.get('/configuration/routes');
        const last = modelOf(tables[tables.length - 1]!);
        assert.deepEqual(JSON.parse(whole.body), routesPayload(last, new Set(last.servers.map((s) => s.host)), false), 'GET: the whole table with its deltas applied');
      }),
      { seed: 18, numRuns: 40 },
    );
  });

  it('refuses a delta on a table it does not hold (409) and a malformed one (400), keeping the table', async () => {
    const one = routesPayload(modelOf({ rules: [{ host: 'h0.t', rule: { path: '/a', type: 'Prefix', backend: 1 } }], fallback: '404' }), new Set(['h0.t', '_']), false);
    assert.equal((await nginx.post('/configuration/routes?id=one', one)).status, 201);
    const add = { hosts: { 'h1.t': one.hosts['h0.t'] } };
    assert.equal((await nginx.post('/configuration/routes?from=other&id=two', add)).status, 409);
    assert.equal((await nginx.post('/configuration/routes?from=one&id=two', { hosts: { 'h1.t': { exact: {}, prefix: { '/a': 0 }, hsts: false, targets: [] } } })).status, 400);
    assert.equal((await nginx.post('/configuration/routes?from=one', add)).status, 400, 'a delta names the table it makes');
    assert.deepEqual(
      await ask([
        ['h1.t', '/a/x'],
        ['h0.t', '/a/x'],
      ]),
      ['404', 'b1'],
    );
    assert.equal((await nginx.post('/configuration/routes?from=one&id=two', add)).status, 201);
    assert.deepEqual(
      await ask([
        ['h1.t', '/a/x'],
        ['h0.t', '/a/x'],
      ]),
      ['b1', 'b1'],
    );
    assert.equal((await nginx.post('/configuration/routes?from=two&id=three', { hosts: { 'h0.t': null } })).status, 201);
    assert.deepEqual(
      await ask([
        ['h1.t', '/a/x'],
        ['h0.t', '/a/x'],
      ]),
      ['b1', '404'],
    );
    assert.equal((await nginx.post('/configuration/routes?from=two&id=four', add)).status, 409, 'the delta before the last names an old table');
  });

  it('refuses a malformed table whole and keeps the one it has', async () => {
    const good = routesPayload(modelOf({ rules: [{ host: 'h0.t', rule: { path: '/a', type: 'Prefix', backend: 1 } }], fallback: '404' }), new Set(['h0.t', '_']), false);
    assert.equal((await nginx.post('/configuration/routes', good)).status, 201);
    const h0 = good.hosts['h0.t']!;
    // each refusal's message names the place: the host (or the default), the target, the path
    const bad: [unknown, RegExp][] = [
      [{ ...good, default: { ...good.default, prefix: { '/a': 0 } } }, /default\.prefix\["\/a"\]: a prefix must end with '\/'/], // no '/'
      [{ ...good, hosts: { 'h0.t': { ...h0, prefix: { '/a': 0 } } } }, /hosts\[h0\.t\]\.prefix\["\/a"\]: a prefix must end with '\/'/],
      [{ ...good, hosts: { 'h0.t': { ...h0, exact: { '/a': 99 } } } }, /hosts\[h0\.t\]\.exact\["\/a"\]: must be a target index/], // no such target
      [{ ...good, hosts: { 'h0.t': { exact: {}, prefix: { '/': 0 }, hsts: false } } }, /hosts\[h0\.t\]\.targets: must be an array/], // no targets
      [{ ...good, hosts: { 'h0.t; x': good.default } }, /hosts: h0\.t; x is not a host name/], // not a host name
      [{ ...good, hosts: { 'h0.t': { ...h0, targets: [{ backend: 'x"y', canary: '', redirect: 0, denied: false, metrics: '' }] } } }, /hosts\[h0\.t\]\.targets\[0\]\.backend: must match/],
      // an affinity cookie path that would end the Path attribute and add one of its own
      [{ ...good, hosts: { 'h0.t': { ...h0, targets: h0.targets.map((x) => ({ ...x, cookiePath: '/a; Domain=x' })) } } }, /hosts\[h0\.t\]\.targets\[0\]\.cookiePath: must be absent/],
      // a body limit (docs/adr/0063) that is not a whole number of bytes
      [{ ...good, hosts: { 'h0.t': { ...h0, targets: h0.targets.map((x) => ({ ...x, maxBody: -1 })) } } }, /hosts\[h0\.t\]\.targets\[0\]\.maxBody: must be absent or an integer/],
      [{ ...good, hosts: { 'h0.t': { ...h0, targets: h0.targets.map((x) => ({ ...x, maxBody: '8k' })) } } }, /hosts\[h0\.t\]\.targets\[0\]\.maxBody: must be absent or an integer/],
      [{ ...good, hosts: { 'h0.t': null } }, /hosts\[h0\.t\]: must be an object/], // a removal is a delta's
      ['not json', /invalid JSON/],
    ];
    for (const [body, message] of bad) {
      const r = await nginx.post('/configuration/routes', body);
      assert.equal(r.status, 400, `${JSON.stringify(body).slice(0, 200)} -> ${r.body}`);
      assert.match(r.body, message);
    }
    assert.deepEqual(
      await ask([
        ['h0.t', '/a/x'],
        ['h0.t', '/ab'],
        ['other.t', '/a'],
      ]),
      ['b1', '404', '404'],
    );
  });
});

/** Each request: the match of one host and path, then the worker's pid, its Lua memory after a full collection, and how many host entries the dict holds. */
const STATE_LOCATION = `
        location = /match-state {
            content_by_lua_block {
                local cjson = require("cjson.safe")
                local t = require("portico.router").match(ngx.var.arg_host, "/")
                collectgarbage("collect")
                local keys = 0
                for _, k in ipairs(ngx.shared.portico_backends:get_keys(0)) do
                    if k:sub(1, 9) == "routes:h:" then keys = keys + 1 end
                end
                ngx.print(cjson.encode({ backend = t == nil and "-" or (t.found and t.backend or "404"), pid = ngx.worker.pid(), kib = collectgarbage("count"), keys = keys }))
            }
        }`;

/** A route table of `n` hosts `<prefix><i>.t`, each to backend `<prefix><i>_80`. */
function tableOf(prefix: string, n: number): string {
  const target = (b: string): string => `{"backend":"${b}","canary":"","redirect":0,"denied":false,"rewrite":false,"profile":"","metrics":"ns|ing|svc|host|${b}"}`;
  const hosts = Array.from({ length: n }, (_, i) => `"${prefix}${i}.t":{"hsts":false,"exact":{},"prefix":{"/":0},"targets":[${target(`${prefix}${i}_80`)}]}`);
  return `{"hosts":{${hosts.join(',')}},"default":{"hsts":false,"exact":{},"prefix":{"/":0},"targets":[${target('')}]}}`;
}

void describe('lua router: hosts read by name, not the whole table (docs/adr/0050)', () => {
  let nginx: Nginx;
  before(async () => {
    nginx = await startNginx({ workers: 2, httpExtra: '', locations: STATE_LOCATION });
  });
  after(async () => {
    await nginx.stop();
  });

  type State = { backend: string; pid: number; kib: number; keys: number };
  const state = async (host: string): Promise<State> => {
    const r = await request(nginx.port, `/match-state?host=${host}`);
    assert.equal(r.status, 200, r.body);
    return JSON.parse(r.body) as State;
  };

  it('a worker holds only the hosts asked for: 20,000 hosts pushed, a reload, each worker well under the decoded table', async () => {
    const posted = await request(nginx.statusPort, '/configuration/routes?id=big', { method: 'POST', body: tableOf('a', 20_000), headers: { 'x-portico-token': nginx.token }, timeoutMs: 60_000 });
    assert.equal(posted.status, 201, posted.body);
    const before = nginx.workerPids();
    process.kill(nginx.pid, 'SIGHUP');
    for (let i = 0; i < 100 && nginx.workerPids().some((p) => before.includes(p)); i += 1) await sleep(50);
    const seen = new Map<number, number>();
    for (let i = 0; i < 40; i += 1) {
      const host = `a${(i * 4_999) % 20_000}`;
      const s = await state(`${host}.t`);
      assert.equal(s.backend, `${host}_80`);
      seen.set(s.pid, Math.max(seen.get(s.pid) ?? 0, s.kib));
    }
    assert.equal((await state('nowhere.t')).backend, '404');
    // decoded whole, 20,000 hosts were 17 MiB of Lua tables in every worker that routed a request
    for (const [pid, kib] of seen) assert.ok(kib < 8 * 1024, `worker ${pid}: ${Math.round(kib)} KiB of Lua memory`);
  });

  it('a whole table deletes the entries of the one it replaces, and serves only its own hosts', async () => {
    for (const [id, prefix] of [
      ['one', 'b'],
      ['two', 'c'],
      ['three', 'b'],
    ] as const) {
      const posted = await nginx.post(`/configuration/routes?id=${id}`, tableOf(prefix, 300));
      assert.equal(posted.status, 201, posted.body);
      const other = prefix === 'b' ? 'c' : 'b';
      for (let i = 0; i < 6; i += 1) {
        const s = await state(`${prefix}${i * 50}.t`);
        assert.equal(s.backend, `${prefix}${i * 50}_80`);
        assert.equal(s.keys, 300, 'the dict holds the entries of one table');
        assert.equal((await state(`${other}${i * 50}.t`)).backend, '404', `${other}: the replaced table's host`);
      }
    }
    const delta = await nginx.post('/configuration/routes?from=three&id=four', { hosts: { 'b1.t': null, 'd1.t': (JSON.parse(tableOf('d', 2)) as { hosts: Record<string, unknown> }).hosts['d1.t'] } });
    assert.equal(delta.status, 201, delta.body);
    assert.equal((await state('b1.t')).backend, '404');
    assert.equal((await state('d1.t')).backend, 'd1_80');
    assert.equal((await state('b2.t')).keys, 300, 'one removed, one added');
    assert.equal((await nginx.post('/configuration/routes?id=five', tableOf('c', 10))).status, 201);
    assert.equal((await state('c3.t')).keys, 10, 'the host a delta added is deleted with its table');
  });
});
