// --enable-dynamic-routes (docs/adr/0014), through the real annotation stage, model and renderer: which hosts go to the
// Lua route table, which keep server blocks, and that a change of only dynamic hosts leaves nginx.conf's hash alone.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AnnotationStage } from '../../src/pipeline/annotations.js';
import { buildAndRender, renderOptions } from '../../src/pipeline/build.js';
import { parseFlags } from '../../src/config/flags.js';
import { planApply, type DataPlaneState } from '../../src/apply/plan.js';
import { EMPTY_SNAPSHOT, type Ingress, type Snapshot } from '../../src/model/input.js';
import type { RoutesPayload, RouteTarget } from '../../src/render/route-entries.js';
import { configMap } from '../support/manifests.js';
import { blockBodyLimit } from '../../src/render/body-limit.js';
import { sizeBytes } from '../../src/model/size.js';
import { ingress, ingressClass, service } from '../support/objects.js';
import { quietLogger } from '../support/quiet-log.js';

const log = quietLogger();
const A = 'nginx.ingress.kubernetes.io';

function render(ingresses: Ingress[], flags: string[] = ['--enable-dynamic-routes'], extra: Partial<Snapshot> = {}): { text: string; hash: string; routes: RoutesPayload | undefined } {
  const config = parseFlags(['--manifests', '/tmp', ...flags], {});
  const snap: Snapshot = { ...EMPTY_SNAPSHOT, ingressClasses: [ingressClass('portico')], services: ['a', 'b', 'main', 'canary'].map((s) => service(s)), ingresses, ...extra };
  const { conf } = buildAndRender(new AnnotationStage(config, log), snap, config, renderOptions(config, undefined));
  return { text: conf.text, hash: conf.hash, routes: conf.routes === undefined ? undefined : (JSON.parse(conf.routes) as RoutesPayload) };
}

const host = (name: string, h: string, annotations?: Record<string, string>, service = 'a', created = '2026-01-01T00:00:00Z'): Ingress =>
  ingress(name, {
    className: 'portico',
    host: h,
    created,
    paths: [
      { path: '/', type: 'Prefix', service },
      { path: '/x', type: 'Exact', service },
    ],
    ...(annotations ? { annotations } : {}),
  });
const hostsOf = (r: { routes: RoutesPayload | undefined }): string[] => Object.keys(r.routes?.hosts ?? {}).sort();
const served = (text: string, h: string): boolean => text.includes(`server_name "${h}";`) || text.includes(`server_name ${JSON.stringify(h)}`);

describe('dynamic routes: the split between the route table and server blocks', () => {
  test('Ingresses without annotations: no server block, every host in the table; off: all rendered, no table', () => {
    const on = render([host('one', 'a.test'), host('two', 'b.test', undefined, 'b')]);
    assert.deepEqual(hostsOf(on), ['a.test', 'b.test']);
    assert.ok(!served(on.text, 'a.test') && !served(on.text, 'b.test'));
    assert.match(on.text, /require\("portico\.router"\)\.route\(\)/);
    const off = render([host('one', 'a.test')], ['--enable-dynamic-routes=false']);
    assert.equal(off.routes, undefined);
    assert.ok(served(off.text, 'a.test'));
    assert.doesNotMatch(off.text, /portico\.router/);
  });

  test('the catch-all is a plain-HTTP block without the HSTS lines and a TLS block with them (docs/adr/0042)', () => {
    const profiled = { [`${A}/proxy-read-timeout`]: '30' };
    const { text } = render([host('one', 'a.test'), host('slow', 'c.test', profiled)], ['--enable-dynamic-routes', '--http-port', '8080', '--https-port', '8443']);
    const blocks = text
      .split('\n    server {')
      .filter((b) => b.includes('server_name _;'))
      .map((b) => b.slice(0, b.indexOf('\n    }')));
    assert.equal(blocks.length, 2);
    const [plain, tls] = blocks as [string, string];
    assert.match(plain, /listen 8080 default_server/);
    assert.doesNotMatch(plain, /listen 8443|Strict-Transport-Security|ssl_certificate/);
    assert.match(tls, /listen 8443 ssl/);
    // the TLS ports' default server: the one SSL context of plain hosts (docs/adr/0052)
    assert.match(tls, /ssl_certificate "[^"]+default\.crt";\n\s+ssl_certificate_key "[^"]+default\.key";\n\s+ssl_certificate_by_lua_block/);
    assert.doesNotMatch(tls, /listen 8080/);
    // the router's location, its 404 and each profile set the header in the TLS block
    const headers = (tls.match(/more_set_headers "Strict-Transport-Security: \$portico_route_hsts_header";/g) ?? []).length;
    const profiles = (tls.match(/location @portico_profile_/g) ?? []).length;
    assert.ok(profiles >= 1);
    assert.equal(headers, 2 + profiles);
    // both blocks route the same way: the same locations, the HSTS lines aside
    const locations = (b: string): string[] => b.split('\n').filter((l) => !l.includes('Strict-Transport-Security') && !l.includes('listen ') && !l.includes('ssl_certificate'));
    assert.deepEqual(locations(plain), locations(tls));
  });

  test('adding, changing or removing a dynamic host changes the table, not nginx.conf: the plan is dynamic', () => {
    const before = render([host('one', 'a.test')]);
    const after = render([host('one', 'a.test', undefined, 'b'), host('two', 'b.test')]);
    assert.equal(after.hash, before.hash);
    assert.notDeepEqual(after.routes, before.routes);
    const state = (r: typeof before): DataPlaneState => ({ confHash: r.hash, backends: '[]', certificates: '', clientFiles: '', routes: JSON.stringify(r.routes) });
    assert.equal(planApply(state(before), state(after)), 'dynamic');
    assert.equal(planApply(state(before), state(before)), 'noop');
  });

  test('annotations that render directives: a shared profile location; a second Ingress with the same ones is a push', () => {
    const slow = { [`${A}/proxy-read-timeout`]: '30' };
    const one = render([host('one', 'a.test'), host('slow', 'c.test', slow)]);
    assert.deepEqual(hostsOf(one), ['a.test', 'c.test']);
    assert.ok(!served(one.text, 'c.test'));
    // the catch-all's default backend has a profile of its own: its 404 without an access log line
    const quiet = one.routes!.default.targets.map((t) => t.profile).filter((p) => p !== '');
    assert.equal(quiet.length, 1);
    // the catch-all is two server blocks, its plain-HTTP and its TLS ports (docs/adr/0042): each holds the profile once
    const found = (one.text.match(/location @portico_profile_[0-9a-f]+ \{/g) ?? []).filter((p) => !p.includes(quiet[0]!));
    assert.equal(found.length, 2);
    const profiles = [...new Set(found)];
    assert.equal(profiles.length, 1);
    assert.match(one.text, /proxy_read_timeout 30s;/);
    const c = one.routes!.hosts['c.test']!.targets[one.routes!.hosts['c.test']!.prefix['/']!]!;
    assert.equal(`location ${c.profile} {`, profiles[0]);
    assert.equal(one.routes!.hosts['a.test']!.targets[one.routes!.hosts['a.test']!.prefix['/']!]!.profile, '', "no annotation: the router's own location");
    const two = render([host('one', 'a.test'), host('slow', 'c.test', slow), host('slow2', 'd.test', slow, 'b')]);
    assert.equal(two.hash, one.hash, 'the same annotations: the same profile, nginx.conf unchanged');
    const other = render([host('one', 'a.test'), host('slow', 'c.test', slow), host('slower', 'd.test', { [`${A}/proxy-read-timeout`]: '31' })]);
    assert.notEqual(other.hash, one.hash, 'a new block: a new profile, a reload');
  });

  test('a profile is rendered from the real target: per-Ingress directives (rate-limit zones) give one profile each', () => {
    const r = render([host('one', 'a.test', { [`${A}/limit-rps`]: '5' }), host('two', 'b.test', { [`${A}/limit-rps`]: '5' }, 'b')]);
    assert.deepEqual(hostsOf(r), ['a.test', 'b.test']);
    const profileOf = (h: string): string => r.routes!.hosts[h]!.targets[r.routes!.hosts[h]!.prefix['/']!]!.profile;
    assert.notEqual(profileOf('a.test'), profileOf('b.test'));
    for (const h of ['a.test', 'b.test']) {
      const block = r.text.slice(r.text.indexOf(`location ${profileOf(h)} {`));
      assert.match(block.slice(0, block.indexOf('\n        }')), /limit_req zone=/);
    }
  });

  test('what needs a server-level companion keeps its host rendered, and only that host: auth-url, server-alias', () => {
    const r = render([host('one', 'a.test'), host('auth', 'c.test', { [`${A}/auth-url`]: 'http://auth.example.com/check' }), host('alias', 'e.test', { [`${A}/server-alias`]: 'f.test' })]);
    assert.deepEqual(hostsOf(r), ['a.test']);
    assert.ok(served(r.text, 'c.test') && served(r.text, 'e.test'));
  });

  test('annotations Lua does per request stay dynamic: ssl-redirect, load-balance, upstream-hash-by, affinity, canary', () => {
    const r = render([
      host('redirect', 'r.test', { [`${A}/ssl-redirect`]: 'false', [`${A}/force-ssl-redirect`]: 'true' }),
      host('ewma', 'e.test', { [`${A}/load-balance`]: 'ewma' }, 'b'),
      host('hash', 'h.test', { [`${A}/upstream-hash-by`]: '$request_uri' }, 'b'),
      host('main', 'm.test', { [`${A}/affinity`]: 'cookie' }, 'main'),
      host('canary', 'm.test', { [`${A}/canary`]: 'true', [`${A}/canary-weight`]: '50' }, 'canary', '2026-02-01T00:00:00Z'),
    ]);
    assert.deepEqual(hostsOf(r), ['e.test', 'h.test', 'm.test', 'r.test']);
    const routes = r.routes!;
    const targetOf = (h: string, p: string): RouteTarget => routes.hosts[h]!.targets[routes.hosts[h]!.prefix[p]!]!;
    assert.equal(targetOf('r.test', '/').redirect, 308, 'force-ssl-redirect, http-redirect-code 308');
    assert.notEqual(targetOf('m.test', '/').canary, '', 'the canary route key');
  });

  test('the affinity cookie is set on the paths of the Ingress that asked for it, with their path; off on the others of its Service', () => {
    const r = render([
      ingress('sticky', { className: 'portico', host: 's.test', paths: [{ path: '/foo/bar', type: 'Prefix', service: 'a' }], annotations: { [`${A}/affinity`]: 'cookie' } }),
      ingress('plain', { className: 'portico', host: 's.test', paths: [{ path: '/foo', type: 'Prefix', service: 'a' }] }),
      ingress('pinned', {
        className: 'portico',
        host: 's.test',
        paths: [{ path: '/p', type: 'Exact', service: 'a' }],
        annotations: { [`${A}/affinity`]: 'cookie', [`${A}/session-cookie-path`]: '/' },
      }),
      host('other', 'o.test', undefined, 'b'),
    ]);
    const routes = r.routes!;
    const s = routes.hosts['s.test']!;
    assert.equal(s.targets[s.prefix['/foo/bar/']!]!.cookiePath, '/foo/bar');
    assert.equal(s.targets[s.prefix['/foo/']!]!.cookiePath, 'off');
    assert.equal(s.targets[s.exact['/p']!]!.cookiePath, '/', 'session-cookie-path wins over the rule path');
    const o = routes.hosts['o.test']!;
    assert.equal(o.targets[o.prefix['/']!]!.cookiePath, undefined, 'a backend without affinity says nothing');
  });

  test('a host under a rendered wildcard stays rendered; under a dynamic one it is dynamic', () => {
    const rendered = render([host('wild', '*.w.test', { [`${A}/auth-url`]: 'http://auth.example.com/check' }), host('x', 'x.w.test'), host('y', 'y.v.test')]);
    assert.deepEqual(hostsOf(rendered), ['y.v.test']);
    const dynamic = render([host('wild', '*.w.test'), host('x', 'x.w.test')]);
    assert.deepEqual(hostsOf(dynamic), ['*.w.test', 'x.w.test']);
  });

  test('nothing is dynamic when the catch-all cannot be: a host-less rule with auth-url, or ssl-reject-handshake', () => {
    const hostless = ingress('any', { className: 'portico', paths: [{ path: '/any', type: 'Prefix', service: 'a' }], annotations: { [`${A}/auth-url`]: 'http://auth.example.com/check' } });
    const r = render([host('one', 'a.test'), hostless]);
    assert.equal(r.routes, undefined);
    assert.ok(served(r.text, 'a.test'));
    const reject = render([host('one', 'a.test')], ['--enable-dynamic-routes', '--configmap', 'default/cfg'], { configMaps: [configMap('cfg', { 'ssl-reject-handshake': 'true' })] });
    assert.equal(reject.routes, undefined);
    assert.ok(served(reject.text, 'a.test'));
  });

  test('the table holds the compiled locations: Exact twin of each prefix, fallback in the catch-all entry', () => {
    const r = render([host('one', 'a.test')]);
    const a = r.routes!.hosts['a.test']!;
    assert.deepEqual(Object.keys(a.exact).sort(), ['/x']);
    assert.deepEqual(Object.keys(a.prefix).sort(), ['/']);
    assert.equal(a.targets[a.exact['/x']!]!.backend, 'default_a_80');
    assert.equal(r.routes!.default.targets[r.routes!.default.prefix['/']!]!.backend, '', 'the built-in 404');
  });

  test('the catch-all default backend writes no access log line unless enable-access-log-for-default-backend; a host keeps its 404 logged', () => {
    const profileBlock = (text: string, name: string): string => text.slice(text.indexOf(`location ${name} {`), text.indexOf('}', text.indexOf(`location ${name} {`)));
    const off = render([host('one', 'a.test', undefined, 'a'), ingress('sub', { className: 'portico', host: 'b.test', paths: [{ path: '/b', type: 'Prefix', service: 'b' }] })]);
    const fallback = off.routes!.default.targets[off.routes!.default.prefix['/']!]!;
    assert.equal(fallback.backend, '');
    assert.match(profileBlock(off.text, fallback.profile), /access_log off;[^]*return 404 "default backend - 404\\n";/);
    // b.test's unmatched paths are b.test's own: the router's @portico_not_found, logged
    const b = off.routes!.hosts['b.test']!;
    assert.equal(b.targets[b.prefix['/']!]!.profile, '');
    const on = render([host('one', 'a.test')], ['--enable-dynamic-routes', '--configmap', 'default/cfg'], { configMaps: [configMap('cfg', { 'enable-access-log-for-default-backend': 'true' })] });
    assert.equal(on.routes!.default.targets[on.routes!.default.prefix['/']!]!.profile, '');
    assert.doesNotMatch(on.text, /location @portico_profile_[0-9a-f]+ \{[^}]*access_log off;[^}]*default backend - 404/);
    assert.match(off.text, /location @portico_profile_[0-9a-f]+ \{[^}]*access_log off;[^}]*default backend - 404/);
  });
});

describe('dynamic routes: request body limits (docs/adr/0063)', () => {
  const targetsOf = (r: { routes: RoutesPayload | undefined }, h: string): RouteTarget[] => [...(r.routes?.hosts[h]?.targets ?? [])];
  const routerLimit = (text: string): string | undefined => /location \/ \{\n\s+rewrite_by_lua_block \{ require\("portico\.router"\)\.route\(\) \}\n.*\n\s+client_max_body_size (\S+);/.exec(text)?.[1];
  const cm = (size: string): Partial<Snapshot> => ({ configMaps: [configMap('portico', { 'proxy-body-size': size })] });
  const flags = ['--enable-dynamic-routes', '--configmap', 'default/portico'];

  test('a lower limit: a profile, the router checks it, the router location keeps the catch-all limit', () => {
    const r = render([host('plain', 'a.test'), host('small', 'b.test', { [`${A}/proxy-body-size`]: '1k' })], flags, cm('2k'));
    assert.deepEqual(hostsOf(r), ['a.test', 'b.test']);
    assert.equal(routerLimit(r.text), undefined, 'not open');
    assert.doesNotMatch(r.text, /@portico_bounded/);
    assert.deepEqual(
      targetsOf(r, 'b.test').map((t) => t.maxBody),
      [1024],
    );
    assert.deepEqual(
      targetsOf(r, 'a.test').map((t) => t.maxBody),
      [undefined],
    );
  });

  test('a raised limit or none opens the router location: every route carries its limit, plain ones the catch-all one', () => {
    for (const [size, bytes] of [
      ['8m', 8 * 1024 * 1024],
      ['0', 0],
    ] as const) {
      const r = render([host('plain', 'a.test'), host('big', 'b.test', { [`${A}/proxy-body-size`]: size })], flags, cm('2k'));
      assert.deepEqual(hostsOf(r), ['a.test', 'b.test'], size);
      assert.equal(routerLimit(r.text), '0', size);
      assert.match(r.text, /location @portico_bounded \{\n(.*\n)*?\s+client_max_body_size 2k;/, size);
      assert.deepEqual(
        targetsOf(r, 'b.test').map((t) => t.maxBody),
        [bytes],
        size,
      );
      assert.deepEqual(
        targetsOf(r, 'a.test').map((t) => t.maxBody),
        [2048],
        size,
      );
      assert.equal(r.routes?.default.targets[0]?.maxBody, 2048, `${size}: the catch-all's 404 too`);
    }
  });

  test('the ConfigMap lifting the limit (0): nothing opens, a lower limit is checked', () => {
    const r = render([host('plain', 'a.test'), host('small', 'b.test', { [`${A}/proxy-body-size`]: '1k' })], flags, cm('0'));
    assert.equal(routerLimit(r.text), undefined);
    assert.deepEqual(
      targetsOf(r, 'b.test').map((t) => t.maxBody),
      [1024],
    );
  });

  test("a block's own limit as the router reads it: one line of a size, else none or refused", () => {
    assert.equal(sizeBytes('0'), 0);
    assert.equal(sizeBytes('512'), 512);
    assert.equal(sizeBytes('8k'), 8192);
    assert.equal(sizeBytes('2m'), 2 * 1024 * 1024);
    assert.equal(sizeBytes('1g'), 1024 ** 3);
    assert.equal(sizeBytes('1t'), undefined);
    assert.equal(blockBodyLimit('            proxy_pass http://portico_balancer;'), 'none');
    assert.equal(blockBodyLimit('            client_max_body_size 16m;\n            proxy_pass x;'), 16 * 1024 * 1024);
    // two lines (a snippet's and the annotation's) or one the router cannot read: the host keeps its server block
    assert.equal(blockBodyLimit('            client_max_body_size 1m;\n            client_max_body_size 2m;'), 'bad');
    assert.equal(blockBodyLimit('            client_max_body_size $x;'), 'bad');
    assert.equal(blockBodyLimit('            if ($a) { client_max_body_size 1m; }'), 'bad');
  });
});

test('dynamic routes: a ConfigMap location-snippet with a body limit keeps the router closed and limited hosts rendered (docs/adr/0063)', () => {
  const r = render([host('plain', 'a.test'), host('big', 'b.test', { [`${A}/proxy-body-size`]: '8m' })], ['--enable-dynamic-routes', '--configmap', 'default/portico'], {
    configMaps: [configMap('portico', { 'proxy-body-size': '2k', 'location-snippet': 'client_max_body_size 4k;' })],
  });
  assert.match(r.text, /client_max_body_size 4k;/, 'the snippet is rendered');
  assert.doesNotMatch(r.text, /client_max_body_size 0;/);
  assert.doesNotMatch(r.text, /@portico_bounded/);
  assert.deepEqual(Object.keys(r.routes?.hosts ?? {}), ['a.test']);
  assert.ok(served(r.text, 'b.test'));
});
