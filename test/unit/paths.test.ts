// The Kubernetes path table and host rules, checked on the model and on the compiled nginx locations.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildModel } from '../../src/model/build.js';
import fc from 'fast-check';
import { compileLocations, indexRoutes, nginxPick, normalizePath, route, type PathRule } from '../../src/model/routes.js';
import { compileLocationsQuadratic } from '../support/routes-reference.js';
import type { ModelOptions, Snapshot } from '../../src/model/input.js';
import type { Model, Target } from '../../src/model/types.js';
import { PATH_TABLE } from '../support/path-table.js';
import { ingress, ingressClass, service, slice } from '../support/objects.js';

const OPTS: ModelOptions = {
  controllerClass: 'portico.dev/ingress-controller',
  ingressClass: 'portico',
  watchIngressWithoutClass: false,
  defaultBackendService: undefined,
  loadBalance: 'round_robin',
};

function snapshot(parts: Partial<Snapshot>): Snapshot {
  return { ingresses: [], ingressClasses: [ingressClass('portico')], services: [], endpointSlices: [], secrets: [], configMaps: [], ...parts };
}

/** What nginx would answer for host + uri, by the compiled locations of the model. */
export function served(model: Model, host: string, uri: string): string {
  const exact = model.servers.find((s) => s.host === host);
  const wild = model.servers.find((s) => s.host.startsWith('*.') && host.endsWith(s.host.slice(1)) && !host.slice(0, -s.host.length + 1).includes('.'));
  const server = exact ?? wild ?? model.servers.find((s) => s.host === '_');
  const loc = server ? nginxPick(server.locations, uri) : undefined;
  return loc?.target.kind === 'upstream' ? loc.target.upstream : '404';
}

for (const row of PATH_TABLE) {
  test(`path table row ${row.row}: ${row.paths.map((p) => `${p.type} ${p.path}`).join(', ')} ← ${row.request}`, () => {
    const paths = row.paths.map((p, i) => ({ ...p, service: `svc${i}` }));
    const snap = snapshot({
      ingresses: [ingress('table', { host: 'table.test', className: 'portico', paths })],
      services: paths.map((p) => service(p.service)),
      endpointSlices: paths.map((p) => slice(p.service, 8000, ['10.0.0.1'])),
    });
    const model = buildModel(snap, OPTS);
    assert.deepEqual(model.problems, []);
    const want = row.expect === undefined ? '404' : `default_svc${row.expect}_80`;
    assert.equal(served(model, 'table.test', row.request), want);
  });
}

test('host rules: exact, one-label wildcard, no host', () => {
  const snap = snapshot({
    ingresses: [
      ingress('hosts', {
        className: 'portico',
        rules: [
          { host: 'foo.com', paths: [{ path: '/', type: 'Prefix', service: 'exact' }] },
          { host: '*.foo.com', paths: [{ path: '/', type: 'Prefix', service: 'wild' }] },
          { paths: [{ path: '/any', type: 'Prefix', service: 'nohost' }] },
        ],
      }),
    ],
    services: ['exact', 'wild', 'nohost'].map((s) => service(s)),
  });
  const model = buildModel(snap, OPTS);
  assert.equal(served(model, 'foo.com', '/x'), 'default_exact_80');
  assert.equal(served(model, 'bar.foo.com', '/x'), 'default_wild_80');
  assert.equal(served(model, 'baz.bar.foo.com', '/x'), '404');
  assert.equal(served(model, 'other.org', '/any/thing'), 'default_nohost_80');
  assert.equal(served(model, 'other.org', '/x'), '404');
  // A host with its own rules still falls through to rules without a host for paths it does not match.
  assert.equal(served(model, 'baz.bar.foo.com', '/any'), 'default_nohost_80');
});

const SEGMENTS = ['a', 'b', 'ab', 'a.b', 'c'];
function randomPath(rand: () => number, slash: boolean): string {
  const n = Math.floor(rand() * 4);
  const parts = Array.from({ length: n }, () => SEGMENTS[Math.floor(rand() * SEGMENTS.length)]!);
  const p = `/${parts.join('/')}`;
  return slash && n > 0 && rand() < 0.3 ? `${p}/` : p;
}

test('compiled locations answer like the reference matcher for 20,000 random tables and requests', () => {
  let seed = 42;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const fallback: Target = { kind: 'not-found' };
  let checked = 0;
  for (let t = 0; t < 2000; t++) {
    const tiers: PathRule[][] = [0, 1, 2].map((tier) =>
      Array.from({ length: Math.floor(rand() * 4) }, (_, i) => {
        const type = rand() < 0.5 ? ('Exact' as const) : ('Prefix' as const);
        const raw = randomPath(rand, true);
        const path = type === 'Prefix' && raw !== '/' ? raw.replace(/\/$/, '') : raw;
        return { path, type, target: { kind: 'upstream' as const, upstream: `t${tier}r${i}`, ingress: { kind: 'Ingress', namespace: 'n', name: 'x' } } };
      }),
    );
    const locations = compileLocations(tiers, fallback);
    for (let r = 0; r < 10; r++) {
      const uri = randomPath(rand, true);
      const want: Target = route(tiers, uri) ?? fallback;
      assert.deepEqual(nginxPick(locations, uri)?.target, want, `uri ${uri} tiers ${JSON.stringify(tiers)}`);
      // nginx answers 301 by itself for `p` when only a location `p/` exists: every such `p` needs its own `= p`.
      const twinless = locations.some((l) => l.path === `${uri}/`) && !locations.some((l) => l.match === 'exact' && l.path === uri);
      assert.equal(twinless, false, `no exact twin for ${uri}`);
      checked++;
    }
  }
  assert.equal(checked, 20000);
});

// Property-based (fast-check): the indexed route table against the reference scan, on generated tables and requests.
const segment = fc.constantFrom('a', 'b', 'ab', 'a.b', 'c', '');
const rawPath = fc.tuple(fc.array(segment, { maxLength: 4 }), fc.boolean()).map(([parts, slash]) => `/${parts.join('/')}${slash && parts.length > 0 ? '/' : ''}`);
/** Tiers as the model makes them (Prefix paths normalized), or any paths at all (duplicates, trailing '/', '//'). */
function tiersOf(normalized: boolean): fc.Arbitrary<PathRule[][]> {
  const rule = fc
    .tuple(fc.constantFrom('Exact' as const, 'Prefix' as const), normalized ? rawPath : fc.oneof(rawPath, fc.constant('')))
    .map(([type, path]) => ({ type, path: normalized ? normalizePath(path, type) : path }));
  return fc
    .array(fc.array(rule, { maxLength: 6 }), { maxLength: 3 })
    .map((tiers) => tiers.map((rules, t) => rules.map((r, i) => ({ ...r, target: { kind: 'upstream' as const, upstream: `t${t}r${i}`, ingress: { kind: 'Ingress', namespace: 'n', name: 'x' } } }))));
}

test('property: the indexed lookup returns the very rule the reference scan returns, for any tiers and uri', () => {
  fc.assert(
    fc.property(tiersOf(false), rawPath, fc.boolean(), (tiers, uri, prefixOnly) => {
      assert.equal(indexRoutes(tiers)(uri, prefixOnly), route(tiers, uri, prefixOnly));
    }),
    { numRuns: 20000 },
  );
});

test('property: compileLocations is the quadratic reference compiler, whole', () => {
  const fallback: Target = { kind: 'not-found' };
  fc.assert(
    fc.property(tiersOf(false), (tiers) => {
      assert.deepEqual(compileLocations(tiers, fallback), compileLocationsQuadratic(tiers, fallback));
    }),
    { numRuns: 5000 },
  );
});

test('property: nginx choosing among the compiled locations serves what the reference matcher says', () => {
  const fallback: Target = { kind: 'not-found' };
  fc.assert(
    fc.property(tiersOf(true), fc.array(rawPath, { minLength: 1, maxLength: 8 }), (tiers, uris) => {
      const locations = compileLocations(tiers, fallback);
      for (const uri of uris) assert.equal(nginxPick(locations, uri)?.target, route(tiers, uri) ?? fallback, uri);
    }),
    { numRuns: 5000 },
  );
});
