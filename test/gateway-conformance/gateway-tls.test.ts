// Gateway API conformance (v1.6.1), reproduced through real nginx: the GATEWAY-HTTP tests of HTTPS listeners and of
// certificate references to Secrets of another namespace (ReferenceGrant from Gateway to Secret). Each test is named
// with the upstream ShortName; the manifests are this repository's own.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { httpsGet, presented } from '../support/certs.js';
import { until } from '../support/portico.js';
import { backend, httpRoute, mustBeAccepted, startConformance, type Conformance } from './harness.js';
import { APP_NS, INFRA_NS as NS, WEB_NS } from './base.js';
import { mismatch, type Captured, type Expected } from './expect.js';

const V1 = 'infra-backend-v1';
const V2 = 'infra-backend-v2';
const G = 'gateway.networking.k8s.io';

/** A Gateway with one HTTPS listener on 443 whose certificate is the web namespace's Secret `certificate`. */
function httpsGateway(name: string): unknown {
  return {
    apiVersion: `${G}/v1`,
    kind: 'Gateway',
    metadata: { name, namespace: NS },
    spec: {
      gatewayClassName: 'portico-conformance',
      listeners: [
        {
          name: 'https',
          port: 443,
          protocol: 'HTTPS',
          allowedRoutes: { namespaces: { from: 'All' } },
          tls: { certificateRefs: [{ group: '', kind: 'Secret', name: 'certificate', namespace: WEB_NS }] },
        },
      ],
    },
  };
}
/** A ReferenceGrant in `namespace` from `from` to `to` (defaults: from Gateways of the infra namespace, to Secret `certificate`). */
function grant(grantName: string, namespace: string, from: Record<string, string> = {}, to: Record<string, string | undefined> = {}): unknown {
  // `name: undefined` asks for a grant without a name (every Secret of the namespace).
  const { name = 'name' in to ? undefined : 'certificate', ...rest } = to;
  const target = { group: '', kind: 'Secret', ...rest, ...(name === undefined ? {} : { name }) };
  return { apiVersion: `${G}/v1`, kind: 'ReferenceGrant', metadata: { name: grantName, namespace }, spec: { from: [{ group: G, kind: 'Gateway', namespace: NS, ...from }], to: [target] } };
}

interface WantCondition {
  readonly type: string;
  readonly status: 'True' | 'False';
  readonly reason?: string;
}

describe('GATEWAY-HTTP conformance: HTTPS listeners and certificate references', () => {
  let c: Conformance;
  before(async () => {
    c = await startConformance();
  });
  after(async () => {
    await c?.stop();
  });

  /** GatewayStatusMustHaveListeners for a Gateway of one listener `https`: HTTPRoute among its kinds, 0 routes, these conditions. */
  const listenerMust = async (gateway: string, conditions: readonly WantCondition[]): Promise<void> => {
    let seen = '';
    await until(
      `${gateway}: listener https with ${JSON.stringify(conditions)}`,
      async () => {
        const g = (await c.debugGateway()).gateways.find((x) => x.name === gateway && x.namespace === NS);
        seen = JSON.stringify(g?.listeners ?? null);
        const l = g?.listeners.length === 1 ? g.listeners[0] : undefined;
        // as upstream's listenersMatch: HTTPRoute is among the kinds listed (an HTTPS listener lists GRPCRoute too)
        if (l?.name !== 'https' || l.attachedRoutes !== 0 || !l.supportedKinds.some((k) => (k.group ?? G) === G && k.kind === 'HTTPRoute')) return false;
        return conditions.every((w) => l.conditions.some((x) => x.type === w.type && x.status === w.status && (w.reason === undefined || x.reason === w.reason)));
      },
      30_000,
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}; listeners: ${seen}`);
    });
  };

  test('HTTPRouteHTTPSListener', async () => {
    const gw = 'same-namespace-with-https-listener';
    await c.apply([
      httpRoute('httproute-https-test', { parentRefs: [{ name: gw }], hostnames: ['example.org'], rules: [{ backendRefs: [backend(V1)] }] }),
      httpRoute('httproute-https-test-no-hostname', { parentRefs: [{ name: gw, sectionName: 'https-with-hostname' }], rules: [{ backendRefs: [backend(V2)] }] }),
    ]);
    await mustBeAccepted(c, gw, [
      [NS, 'httproute-https-test'],
      [NS, 'httproute-https-test-no-hostname'],
    ]);
    for (const [host, statusCode, to] of [
      ['example.org', 200, V1],
      ['unknown-example.org', 404, undefined],
      ['second-example.org', 200, V2],
    ] as const) {
      // The suite trusts only the Secret's certificate: the one presented for the name must be it.
      assert.equal((await presented(c.portico.https, host)).fingerprint, c.cert.fingerprint, `${host}: the listener's certificate`);
      const e: Expected = { request: { host, path: '/' }, response: { statusCode }, ...(to === undefined ? {} : { backend: to }), namespace: NS };
      let inARow = 0;
      let last = '';
      await until(
        `https://${host}/ to meet its expectation 3 times in a row`,
        async () => {
          const r = await httpsGet(c.portico.https, host, '/');
          const h: Record<string, string[]> = {};
          for (const [k, v] of Object.entries(r.headers)) if (v !== undefined) h[k] = Array.isArray(v) ? v : [v];
          let echo: Captured['echo'];
          try {
            echo = JSON.parse(r.body) as Captured['echo'];
          } catch {
            echo = undefined;
          }
          const why = mismatch(e, { status: r.status, headers: h, echo });
          last = why ?? '';
          inARow = why === undefined ? inARow + 1 : 0;
          return inARow >= 3;
        },
        30_000,
        250,
      ).catch((err: unknown) => {
        throw new Error(`${String(err)}: ${last}`);
      });
    }
  });

  test('GatewaySecretMissingReferenceGrant', async () => {
    await c.apply([httpsGateway('gateway-secret-missing-reference-grant')]);
    await listenerMust('gateway-secret-missing-reference-grant', [{ type: 'ResolvedRefs', status: 'False', reason: 'RefNotPermitted' }]);
  });

  test('GatewaySecretInvalidReferenceGrant', async () => {
    const other = 'not-the-group-youre-looking-for';
    await c.apply([
      httpsGateway('gateway-secret-invalid-reference-grant'),
      grant('reference-grant-wrong-namespace', APP_NS),
      grant('reference-grant-wrong-from-group', WEB_NS, { group: other }),
      grant('reference-grant-wrong-from-kind', WEB_NS, { kind: 'HTTPRoute' }),
      grant('reference-grant-wrong-from-namespace', WEB_NS, { namespace: 'not-the-namespace-youre-looking-for' }),
      grant('reference-grant-wrong-to-group', WEB_NS, {}, { group: other, name: 'not-the-certificate-youre-looking-for' }),
      grant('reference-grant-wrong-to-kind', WEB_NS, {}, { kind: 'Service' }),
      grant('reference-grant-wrong-to-name', WEB_NS, {}, { name: 'not-the-certificate-youre-looking-for' }),
    ]);
    await listenerMust('gateway-secret-invalid-reference-grant', [{ type: 'ResolvedRefs', status: 'False', reason: 'RefNotPermitted' }]);
  });

  test('GatewaySecretReferenceGrantAllInNamespace', async () => {
    await c.apply([httpsGateway('gateway-secret-reference-grant-all-in-namespace'), grant('reference-grant-all-in-namespace', WEB_NS, {}, { name: undefined })]);
    await listenerMust('gateway-secret-reference-grant-all-in-namespace', [
      { type: 'Programmed', status: 'True', reason: 'Programmed' },
      { type: 'ResolvedRefs', status: 'True' },
    ]);
  });

  test('GatewaySecretReferenceGrantSpecific', async () => {
    await c.apply([httpsGateway('gateway-secret-reference-grant-specific'), grant('reference-grant-specific', WEB_NS)]);
    await listenerMust('gateway-secret-reference-grant-specific', [
      { type: 'Programmed', status: 'True', reason: 'Programmed' },
      { type: 'ResolvedRefs', status: 'True' },
    ]);
  });
});
