// What an operator reads of the Lua route table (docs/adr/0014): /debug/config and `portico config --raw` print it
// after nginx.conf, `portico config` says which hosts it serves. Through the real annotation stage, model and renderer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AnnotationStage } from '../../src/pipeline/annotations.js';
import { buildAndRender, renderOptions } from '../../src/pipeline/build.js';
import { parseFlags } from '../../src/config/flags.js';
import { EMPTY_SNAPSHOT, type Ingress, type Snapshot } from '../../src/model/input.js';
import { routeRows, routeTableComment, withRouteTable } from '../../src/inspect/route-table.js';
import { routesOf, type State } from '../../src/inspect/state.js';
import { configTable, table } from '../../src/inspect/tables.js';
import { configMap } from '../support/manifests.js';
import { ingress, ingressClass, service } from '../support/objects.js';
import { quietLogger } from '../support/quiet-log.js';

const log = quietLogger();
const A = 'nginx.ingress.kubernetes.io';

function render(ingresses: Ingress[], flags: string[] = []): ReturnType<typeof buildAndRender> {
  const config = parseFlags(['--manifests', '/tmp', ...flags], {});
  const snap: Snapshot = { ...EMPTY_SNAPSHOT, ingressClasses: [ingressClass('portico')], services: ['a', 'b'].map((s) => service(s)), ingresses };
  return buildAndRender(new AnnotationStage(config, log), snap, config, renderOptions(config, undefined));
}

const site = (): Ingress[] => [
  ingress('shop', {
    className: 'portico',
    host: 'shop.test',
    paths: [
      { path: '/', type: 'Prefix', service: 'a' },
      { path: '/v1', type: 'Exact', service: 'b' },
    ],
  }),
  ingress('slow', { className: 'portico', host: 'slow.test', paths: [{ path: '/', type: 'Prefix', service: 'a' }], annotations: { [`${A}/proxy-read-timeout`]: '30' } }),
  ingress('alias', { className: 'portico', host: 'alias.test', paths: [{ path: '/', type: 'Prefix', service: 'a' }], annotations: { [`${A}/server-alias`]: 'other.test' } }),
];

test('a routed host has no server block, and the route table after nginx.conf lists it with its paths, Ingress and backend', () => {
  const { conf } = render(site());
  assert.ok(conf.routes !== undefined);
  assert.doesNotMatch(conf.text, /server_name "shop\.test";/, 'routed: no server block');
  assert.match(conf.text, /server_name "alias\.test"/, 'server-alias: rendered');
  const text = withRouteTable(conf.text, conf.routes);
  assert.ok(text.startsWith(conf.text), 'nginx.conf first, unchanged');
  const after = text.slice(conf.text.length);
  assert.ok(
    after.split('\n').every((l) => l === '' || l.startsWith('#')),
    'only comment lines after nginx.conf: the text is still a valid nginx.conf',
  );
  assert.match(after, /2 hosts without a server block above/);
  const rows = after
    .split('\n')
    .filter((l) => l.startsWith('# ') && / {2}/.test(l))
    .map((l) => l.slice(2).trim().split(/ {2,}/));
  assert.deepEqual(rows[0], ['HOST', 'MATCH', 'PATH', 'INGRESS', 'BACKEND', 'ACTION']);
  assert.deepEqual(
    rows.filter((r) => r[0] === 'shop.test'),
    [
      ['shop.test', 'prefix', '/', 'default/shop', 'default_a_80', 'proxy'],
      ['shop.test', 'exact', '/v1', 'default/shop', 'default_b_80', 'proxy'],
    ],
  );
  const slow = rows.find((r) => r[0] === 'slow.test');
  assert.match(slow?.[5] ?? '', /^proxy in @portico_profile_[0-9a-f]+$/, 'an annotated path: the named location that runs it');
  assert.ok(
    rows.some((r) => r[0] === '*' && r[5] === '404'),
    "the catch-all's own answer for any other host",
  );
  assert.ok(!rows.some((r) => r[0] === 'alias.test'), 'a rendered host is not in the table');
});

test('with --enable-dynamic-routes=false there is no table: nginx.conf alone, every host a server block', () => {
  const { conf } = render(site(), ['--enable-dynamic-routes=false']);
  assert.equal(conf.routes, undefined);
  assert.equal(withRouteTable(conf.text, conf.routes ?? ''), conf.text);
  assert.equal(routeTableComment(''), '');
  assert.deepEqual(routeRows(''), []);
  assert.match(conf.text, /server_name "shop\.test";/);
});

test('`portico config` says what serves each host: its server block, or the route table', () => {
  const { model, conf } = render(site());
  const state = { routes: routesOf(model, [], new Set(conf.routeHosts?.keys())) } as unknown as State; // configTable reads routes only
  const rows = configTable(state)
    .split('\n')
    .map((l) => l.trim().split(/ {2,}/));
  assert.deepEqual(rows[0], ['HOST', 'MATCH', 'PATH', 'INGRESS', 'BACKEND', 'SERVED BY']);
  const servedBy = new Map(rows.slice(1).map((r) => [r[0], r[5]]));
  assert.equal(servedBy.get('shop.test'), 'route table');
  assert.equal(servedBy.get('slow.test'), 'route table');
  assert.equal(servedBy.get('alias.test'), 'server block');
  const off = render(site(), ['--enable-dynamic-routes=false']);
  const offRows = configTable({ routes: routesOf(off.model, [], new Set(off.conf.routeHosts?.keys())) } as unknown as State);
  assert.doesNotMatch(offRows, /route table/);
});

test('dynamic routes are on by default: no flag routes the dynamic set; =false (or --no-) renders every host', () => {
  assert.ok(render(site()).conf.routes?.includes('"shop.test"'));
  for (const off of [['--enable-dynamic-routes=false'], ['-enable-dynamic-routes=false'], ['--no-enable-dynamic-routes']]) {
    const { conf } = render(site(), off);
    assert.equal(conf.routes, undefined, off.join(' '));
    assert.match(conf.text, /server_name "shop\.test";/, off.join(' '));
  }
});

test('$server_name is `_` in the catch-all: what reads it keeps its server block, so what it sees does not change', () => {
  const routed = (c: { routeHosts?: ReadonlyMap<string, string> | undefined }): string[] => [...(c.routeHosts?.keys() ?? [])].filter((h) => h !== '_').sort();
  // FastCGI sends SERVER_NAME $server_name: that host stays rendered, the others stay routed
  const php = ingress('php', { className: 'portico', host: 'php.test', paths: [{ path: '/', type: 'Prefix', service: 'a' }], annotations: { [`${A}/backend-protocol`]: 'FCGI' } });
  const fcgi = render([...site(), php]).conf;
  assert.deepEqual(routed(fcgi), ['shop.test', 'slow.test']);
  assert.match(fcgi.text, /server_name "php\.test";/);
  assert.match(fcgi.text, /fastcgi_param SERVER_NAME \$server_name;/);
  // a log format reading $server_name: every host keeps its server block (each log line keeps its host's name)
  const withLog = (format: string): ReturnType<typeof render>['conf'] => {
    const config = parseFlags(['--manifests', '/tmp', '--configmap', 'default/cfg'], {});
    const snap: Snapshot = {
      ...EMPTY_SNAPSHOT,
      ingressClasses: [ingressClass('portico')],
      services: ['a', 'b'].map((s) => service(s)),
      ingresses: site(),
      configMaps: [configMap('cfg', { 'log-format-upstream': format })],
    };
    return buildAndRender(new AnnotationStage(config, log), snap, config, renderOptions(config, undefined)).conf;
  };
  const byName = withLog('$server_name $status');
  assert.equal(byName.routes, undefined);
  assert.match(byName.text, /server_name "shop\.test";/);
  assert.deepEqual(routed(withLog('$host $status')), ['shop.test', 'slow.test'], 'a log format without $server_name: still routed');
});

test('a table of 200,000 rows is printed (portico render and portico config at 100,000 Ingresses), aligned as a short one', () => {
  const rows = Array.from({ length: 200_000 }, (_, i) => [`h${i}.scale.test`, i % 2 === 0 ? 'prefix' : '']);
  const text = table(['HOST', 'MATCH'], rows);
  const lines = text.split('\n');
  assert.equal(lines.length, 200_001);
  assert.equal(lines[0], `HOST${' '.repeat('h199999.scale.test'.length - 4)}  MATCH`);
  assert.equal(lines[2], `h1.scale.test${' '.repeat('h199999.scale.test'.length - 'h1.scale.test'.length)}  -`);
  assert.equal(table(['A', 'B'], [['xx', 'y']]), 'A   B\nxx  y');
});
