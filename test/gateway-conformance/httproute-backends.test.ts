// Gateway API conformance (v1.6.1), reproduced through real nginx: the HTTPRoute backend tests of the GATEWAY-HTTP
// profile (weights, ReferenceGrant, invalid and omitted backendRefs answering 500 with the route's ResolvedRefs
// reason). Each test is named with the upstream ShortName; the manifests are this repository's own.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backend, httpRoute, mustBeAccepted, startConformance, type Conformance } from './harness.js';
import { APP_NS, INFRA_NS as NS, WEB_NS } from './base.js';
import { mismatch, type Expected } from './expect.js';

const V1 = 'infra-backend-v1';
const V2 = 'infra-backend-v2';
const V3 = 'infra-backend-v3';
const fails = (path: string): Expected => ({ request: { path }, response: { statusCode: 500 } });

/** A ReferenceGrant in `namespace` from `from` (group/kind/namespace) to `to` (group/kind/name). */
function grant(name: string, namespace: string, from: { group?: string; kind?: string; namespace?: string } = {}, to: { group?: string; kind?: string; name?: string } = {}): unknown {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'ReferenceGrant',
    metadata: { name, namespace },
    spec: {
      from: [{ group: from.group ?? 'gateway.networking.k8s.io', kind: from.kind ?? 'HTTPRoute', namespace: from.namespace ?? NS }],
      to: [{ group: to.group ?? '', kind: to.kind ?? 'Service', name: to.name ?? 'web-backend' }],
    },
  };
}

/** The pod-name prefix the suite's weight check reads: the name without its last two dash-separated parts. */
const serviceOfPod = (pod: string): string => pod.split('-').slice(0, -2).join('-');

describe('GATEWAY-HTTP conformance: HTTPRoute backends', () => {
  let c: Conformance;
  before(async () => {
    c = await startConformance();
  });
  after(async () => {
    await c?.stop();
  });

  const resolvedRefs = (route: string, status: 'True' | 'False', reason?: string): Promise<void> =>
    c.routeCondition({ route, namespace: NS, gateway: 'same-namespace', type: 'ResolvedRefs', status, ...(reason === undefined ? {} : { reason }) });
  const accepted = (route: string): Promise<void> => c.routeCondition({ route, namespace: NS, gateway: 'same-namespace', type: 'Accepted', status: 'True' });

  test('HTTPRouteWeight', async () => {
    await c.apply([httpRoute('weighted-backends', { rules: [{ backendRefs: [backend(V1, { weight: 70 }), backend(V2, { weight: 30 }), backend(V3, { weight: 0 })] }] })]);
    await mustBeAccepted(c, 'same-namespace', [[NS, 'weighted-backends']]);
    const expected: Expected = { request: { path: '/' }, namespace: NS };
    await c.expect(expected);
    // The suite's distribution check: 500 requests, 10 at a time, each share within 5 points of its weight; 10 tries.
    const want = new Map([
      [V1, 0.7],
      [V2, 0.3],
      [V3, 0],
    ]);
    const errors: string[] = [];
    for (let attempt = 0; attempt < 10; attempt++) {
      const seen = new Map<string, number>();
      for (let batch = 0; batch < 50; batch++) {
        const got = await Promise.all(Array.from({ length: 10 }, (_, i) => c.roundTrip({ ...expected, request: { path: '/', headers: { 'X-Jitter': String(batch * 10 + i) } } })));
        for (const r of got) {
          assert.equal(mismatch({ ...expected, request: { path: '/', headers: {} } }, r), undefined);
          const name = serviceOfPod(r.echo?.pod ?? '');
          seen.set(name, (seen.get(name) ?? 0) + 1);
        }
      }
      const off = [...want].filter(([name, share]) => Math.abs((seen.get(name) ?? 0) / 500 - share) > 0.05 || (share === 0 && seen.has(name)));
      if (off.length === 0 && [...seen.keys()].every((k) => (want.get(k) ?? 0) > 0)) return;
      errors.push(JSON.stringify(Object.fromEntries(seen)));
    }
    assert.fail(`the distribution missed the weights in 10 tries: ${errors.join('; ')}`);
  });

  test('HTTPRouteReferenceGrant', async () => {
    const route = httpRoute('reference-grant', { rules: [{ backendRefs: [backend('web-backend', { namespace: WEB_NS })] }] });
    await c.apply([grant('reference-grant', WEB_NS), route]);
    await mustBeAccepted(c, 'same-namespace', [[NS, 'reference-grant']]);
    await c.expect({ request: { method: 'GET', path: '/' }, backend: 'web-backend', namespace: WEB_NS });
    await c.apply([route]);
    await c.expect(fails('/'));
  });

  test('HTTPRouteInvalidNonExistentBackendRef', async () => {
    await c.apply([httpRoute('invalid-nonexistent-backend-ref', { rules: [{ backendRefs: [backend('nonexistent', { namespace: NS })] }] })]);
    await accepted('invalid-nonexistent-backend-ref');
    await resolvedRefs('invalid-nonexistent-backend-ref', 'False', 'BackendNotFound');
    await c.expect(fails('/'));
  });

  test('HTTPRouteInvalidBackendRefUnknownKind', async () => {
    await c.apply([httpRoute('invalid-backend-ref-unknown-kind', { rules: [{ backendRefs: [backend(V1, { group: 'unknownkind.example.com', kind: 'NonExistent' })] }] })]);
    await accepted('invalid-backend-ref-unknown-kind');
    await resolvedRefs('invalid-backend-ref-unknown-kind', 'False', 'InvalidKind');
    await c.expect(fails('/v2'));
  });

  test('HTTPRouteInvalidCrossNamespaceBackendRef', async () => {
    await c.apply([httpRoute('invalid-cross-namespace-backend-ref', { rules: [{ backendRefs: [backend('web-backend', { namespace: WEB_NS })] }] })]);
    await accepted('invalid-cross-namespace-backend-ref');
    await resolvedRefs('invalid-cross-namespace-backend-ref', 'False', 'RefNotPermitted');
    await c.expect(fails('/'));
  });

  test('HTTPRouteInvalidReferenceGrant', async () => {
    const other = 'not-the-group-youre-looking-for';
    await c.apply([
      grant('reference-grant-wrong-namespace', NS),
      grant('reference-grant-wrong-from-group', WEB_NS, { group: other }),
      grant('reference-grant-wrong-from-kind', WEB_NS, { kind: 'Gateway' }),
      grant('reference-grant-wrong-from-namespace', WEB_NS, { namespace: 'not-the-namespace-youre-looking-for' }),
      grant('reference-grant-wrong-to-group', WEB_NS, {}, { group: other }),
      grant('reference-grant-wrong-to-kind', WEB_NS, {}, { kind: 'Secret' }),
      grant('reference-grant-wrong-to-name', WEB_NS, {}, { kind: 'Secret', name: 'not-the-service-youre-looking-for' }),
      httpRoute('reference-grant', { rules: [{ backendRefs: [backend('web-backend', { namespace: WEB_NS })] }] }),
    ]);
    await accepted('reference-grant');
    await resolvedRefs('reference-grant', 'False', 'RefNotPermitted');
    await c.expect({ ...fails('/'), backend: 'web-backend', namespace: WEB_NS });
  });

  test('HTTPRoutePartiallyInvalidViaInvalidReferenceGrant', async () => {
    await c.apply([
      grant('invalid-reference-grant', APP_NS, {}, { name: 'app-backend-v1' }),
      httpRoute('invalid-reference-grant', {
        rules: [
          { matches: [{ path: { type: 'PathPrefix', value: '/v2' } }], backendRefs: [backend('app-backend-v2', { namespace: APP_NS })] },
          { backendRefs: [backend('app-backend-v1', { namespace: APP_NS })] },
        ],
      }),
    ]);
    await accepted('invalid-reference-grant');
    await resolvedRefs('invalid-reference-grant', 'False', 'RefNotPermitted');
    await c.expect(fails('/v2'));
    await c.expect({ request: { method: 'GET', path: '/' }, backend: 'app-backend-v1', namespace: APP_NS });
  });

  test('HTTPRouteNoBackendRefs', async () => {
    await c.apply([
      httpRoute('omitted-backendrefs', {
        rules: [
          { matches: [{ path: { type: 'Exact', value: '/omitted-no-forward' } }] },
          { matches: [{ path: { type: 'Exact', value: '/empty-no-forward' } }], backendRefs: [] },
          { matches: [{ path: { type: 'PathPrefix', value: '/' } }], backendRefs: [backend(V1)] },
        ],
      }),
    ]);
    await mustBeAccepted(c, 'same-namespace', [[NS, 'omitted-backendrefs']]);
    await c.expect({ request: { path: '/forward' }, backend: V1, namespace: NS });
    await c.expect(fails('/omitted-no-forward'));
    await c.expect(fails('/empty-no-forward'));
  });
});
