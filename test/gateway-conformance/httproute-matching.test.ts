// Gateway API conformance (v1.6.1), reproduced through real nginx: the HTTPRoute matching tests of the GATEWAY-HTTP
// profile (paths, headers, query parameters, methods, several routes on one host). Each test is named with the
// upstream ShortName; the manifests are this repository's own, with the upstream names the suite's checks rely on.
import { after, before, describe, test } from 'node:test';
import { docs, mustBeAccepted, startConformance, type Conformance } from './harness.js';
import { INFRA_NS as NS, WEB_NS } from './base.js';
import type { Expected } from './expect.js';

const V1 = 'infra-backend-v1';
const V2 = 'infra-backend-v2';
const V3 = 'infra-backend-v3';
const to = (backend: string, path: string, more: Partial<Expected['request']> = {}): Expected => ({ request: { path, ...more }, backend, namespace: NS });
const notFound = (path: string, more: Partial<Expected['request']> = {}): Expected => ({ request: { path, ...more }, response: { statusCode: 404 } });

/** An HTTPRoute of the infra namespace on Gateway same-namespace; `rules` in YAML flow style. */
const route = (name: string, rules: string, extra = ''): unknown[] =>
  docs(`{apiVersion: gateway.networking.k8s.io/v1, kind: HTTPRoute, metadata: {name: ${name}, namespace: ${NS}}, spec: {parentRefs: [{name: same-namespace}], ${extra} rules: ${rules}}}`);
const be = (name: string): string => `[{name: ${name}, port: 8080}]`;

describe('GATEWAY-HTTP conformance: HTTPRoute matching', () => {
  let c: Conformance;
  before(async () => {
    c = await startConformance();
  });
  after(async () => {
    await c?.stop();
  });

  const run = async (objects: unknown[], routes: readonly string[], cases: readonly Expected[], gateway = 'same-namespace', ns = NS): Promise<void> => {
    await c.apply(objects);
    await mustBeAccepted(
      c,
      gateway,
      routes.map((r) => [ns, r]),
    );
    for (const e of cases) await c.expect(e);
  };

  test('HTTPRouteSimpleSameNamespace', async () => {
    await run(route('gateway-conformance-infra-test', `[{backendRefs: ${be(V1)}}]`), ['gateway-conformance-infra-test'], [to(V1, '/')]);
  });

  test('HTTPRouteCrossNamespace', async () => {
    const objects = docs(
      `{apiVersion: gateway.networking.k8s.io/v1, kind: HTTPRoute, metadata: {name: cross-namespace, namespace: ${WEB_NS}}, spec: {parentRefs: [{name: backend-namespaces, namespace: ${NS}}], rules: [{backendRefs: [{name: web-backend, port: 8080}]}]}}`,
    );
    await run(objects, ['cross-namespace'], [{ request: { path: '/' }, backend: 'web-backend', namespace: WEB_NS }], 'backend-namespaces', WEB_NS);
  });

  test('HTTPRouteExactPathMatching', async () => {
    const rules = `[{matches: [{path: {type: Exact, value: /one}}], backendRefs: ${be(V1)}}, {matches: [{path: {type: Exact, value: /two}}], backendRefs: ${be(V2)}}]`;
    await run(route('exact-matching', rules), ['exact-matching'], [to(V1, '/one'), to(V2, '/two'), notFound('/'), notFound('/one/example'), notFound('/two/'), notFound('/Two')]);
  });

  test('HTTPRouteHeaderMatching', async () => {
    const h = (pairs: string): string => `{headers: [${pairs}]}`;
    const rules = `[
      {matches: [${h('{name: version, value: one}')}], backendRefs: ${be(V1)}},
      {matches: [${h('{name: version, value: two}')}], backendRefs: ${be(V2)}},
      {matches: [${h('{name: version, value: two}, {name: color, value: orange}')}], backendRefs: ${be(V1)}},
      {matches: [${h('{name: color, value: blue}')}, ${h('{name: color, value: green}')}], backendRefs: ${be(V1)}},
      {matches: [${h('{name: color, value: red}')}, ${h('{name: color, value: yellow}')}], backendRefs: ${be(V2)}}]`;
    const hd = (headers: Record<string, string>): Partial<Expected['request']> => ({ headers });
    await run(
      route('header-matching', rules),
      ['header-matching'],
      [
        to(V1, '/', hd({ Version: 'one' })),
        to(V2, '/', hd({ Version: 'two' })),
        to(V1, '/', hd({ Version: 'two', Color: 'orange' })),
        to(V2, '/', hd({ Version: 'two', Color: 'blue' })),
        notFound('/', hd({ Color: 'orange' })),
        notFound('/', hd({ 'Some-Other-Header': 'one' })),
        to(V1, '/', hd({ Color: 'blue' })),
        to(V1, '/', hd({ Color: 'green' })),
        to(V2, '/', hd({ Color: 'red' })),
        to(V2, '/', hd({ Color: 'yellow' })),
        notFound('/', hd({ Color: 'purple' })),
      ],
    );
  });

  test('HTTPRouteMatching', async () => {
    const rules = `[
      {matches: [{path: {type: PathPrefix, value: /}}, {headers: [{name: version, value: one}]}], backendRefs: ${be(V1)}},
      {matches: [{path: {type: PathPrefix, value: /v2}}, {headers: [{name: version, value: two}]}], backendRefs: ${be(V2)}}]`;
    await run(
      route('matching', rules),
      ['matching'],
      [
        to(V1, '/'),
        to(V1, '/example'),
        to(V1, '/', { headers: { Version: 'one' } }),
        to(V2, '/v2'),
        to(V2, '/v2/example'),
        to(V2, '/', { headers: { Version: 'two' } }),
        to(V2, '/v2/'),
        to(V1, '/v2example'),
        to(V1, '/foo/v2/example'),
      ],
    );
  });

  test('HTTPRouteMatchingAcrossRoutes', async () => {
    const objects = [
      ...route('matching-part1', `[{matches: [{path: {type: PathPrefix, value: /}}, {headers: [{name: version, value: one}]}], backendRefs: ${be(V1)}}]`, 'hostnames: [example.com, example.net],'),
      ...route('matching-part2', `[{matches: [{path: {type: PathPrefix, value: /v2}}, {headers: [{name: version, value: two}]}], backendRefs: ${be(V2)}}]`, 'hostnames: [example.com],'),
    ];
    const on = (host: string, backend: string, path: string, headers?: Record<string, string>): Expected => to(backend, path, { host, ...(headers ? { headers } : {}) });
    await run(
      objects,
      ['matching-part1', 'matching-part2'],
      [
        on('example.com', V1, '/'),
        on('example.com', V1, '/example'),
        on('example.net', V1, '/example'),
        on('example.com', V1, '/example', { Version: 'one' }),
        on('example.com', V2, '/v2'),
        on('example.net', V1, '/v2'),
        on('example.com', V2, '/v2/example'),
        on('example.com', V2, '/', { Version: 'two' }),
      ],
    );
  });

  test('HTTPRouteQueryParamMatching', async () => {
    const q = (pairs: string): string => `queryParams: [${pairs}]`;
    const rules = `[
      {matches: [{${q('{name: animal, value: whale}')}}], backendRefs: ${be(V1)}},
      {matches: [{${q('{name: animal, value: dolphin}')}}], backendRefs: ${be(V2)}},
      {matches: [{${q('{name: animal, value: dolphin}, {name: color, value: blue}')}}, {${q('{name: ANIMAL, value: Whale}')}}], backendRefs: ${be(V3)}},
      {matches: [{path: {type: PathPrefix, value: /path1}, ${q('{name: animal, value: whale}')}}], backendRefs: ${be(V1)}},
      {matches: [{headers: [{name: version, value: one}], ${q('{name: animal, value: whale}')}}], backendRefs: ${be(V2)}},
      {matches: [{path: {type: PathPrefix, value: /path2}, headers: [{name: version, value: two}], ${q('{name: animal, value: whale}')}}], backendRefs: ${be(V3)}},
      {matches: [{path: {type: PathPrefix, value: /path3}, ${q('{name: animal, value: shark}')}},
                 {path: {type: PathPrefix, value: /path4}, headers: [{name: version, value: three}], ${q('{name: animal, value: kraken}')}}], backendRefs: ${be(V1)}},
      {matches: [{path: {type: PathPrefix, value: /path5}}], backendRefs: ${be(V1)}},
      {matches: [{${q('{name: animal, value: hydra}')}}], backendRefs: ${be(V2)}},
      {matches: [{headers: [{name: version, value: four}]}], backendRefs: ${be(V3)}}]`;
    const v = (version: string): Partial<Expected['request']> => ({ headers: { version } });
    await run(
      route('query-param-matching', rules),
      ['query-param-matching'],
      [
        to(V1, '/?animal=whale'),
        to(V2, '/?animal=dolphin'),
        to(V3, '/?animal=dolphin&color=blue'),
        to(V3, '/?ANIMAL=Whale'),
        to(V1, '/?animal=whale&otherparam=irrelevant'),
        to(V2, '/?animal=dolphin&color=yellow'),
        notFound('/?color=blue'),
        notFound('/?animal=dog'),
        notFound('/?animal=whaledolphin'),
        notFound('/'),
        to(V1, '/path1?animal=whale'),
        to(V2, '/?animal=whale', v('one')),
        to(V3, '/path2?animal=whale', v('two')),
        to(V1, '/path3?animal=shark'),
        to(V1, '/path4?animal=kraken', v('three')),
        notFound('/?animal=shark'),
        notFound('/path4?animal=kraken'),
        to(V1, '/path5?animal=hydra'),
        to(V3, '/?animal=hydra', v('four')),
      ],
    );
  });

  test('HTTPRouteMethodMatching', async () => {
    const rules = `[
      {matches: [{method: POST}], backendRefs: ${be(V1)}},
      {matches: [{method: GET}], backendRefs: ${be(V2)}},
      {matches: [{path: {type: PathPrefix, value: /path1}, method: GET}], backendRefs: ${be(V1)}},
      {matches: [{headers: [{name: version, value: one}], method: PUT}], backendRefs: ${be(V2)}},
      {matches: [{path: {type: PathPrefix, value: /path2}, headers: [{name: version, value: two}], method: POST}], backendRefs: ${be(V3)}},
      {matches: [{path: {type: PathPrefix, value: /path3}, method: PATCH},
                 {path: {type: PathPrefix, value: /path4}, headers: [{name: version, value: three}], method: DELETE}], backendRefs: ${be(V1)}},
      {matches: [{path: {type: PathPrefix, value: /path5}}], backendRefs: ${be(V1)}},
      {matches: [{method: PATCH}], backendRefs: ${be(V2)}},
      {matches: [{headers: [{name: version, value: four}]}], backendRefs: ${be(V3)}}]`;
    const m = (method: string, headers?: Record<string, string>): Partial<Expected['request']> => ({ method, ...(headers ? { headers } : {}) });
    await run(
      route('method-matching', rules),
      ['method-matching'],
      [
        to(V1, '/', m('POST')),
        to(V2, '/', m('GET')),
        notFound('/', m('HEAD')),
        to(V1, '/path1', m('GET')),
        to(V2, '/', m('PUT', { version: 'one' })),
        to(V3, '/path2', m('POST', { version: 'two' })),
        to(V1, '/path3', m('PATCH')),
        to(V1, '/path4', m('DELETE', { version: 'three' })),
        notFound('/', m('PUT')),
        notFound('/path4', m('DELETE')),
        to(V1, '/path5', m('PATCH')),
        to(V2, '/', m('PATCH', { version: 'four' })),
      ],
    );
  });
});
