// Gateway API conformance (v1.6.1), reproduced through real nginx: the GATEWAY-HTTP tests of listeners on ports
// other than 80 and 443 (GatewayPort8080, HTTPRouteParentRefPort): routes kept apart per listener port, a listener
// on 8080 beside one on 80, and RequestRedirect's port and scheme per listener. Portico runs with --gateway-port-map
// putting the listener ports 8080, 8090 and 8443 on free local ports; a request to "the Gateway on 8080" goes there.
// Each test is named with the upstream ShortName; the manifests are this repository's own.
import { after, before, describe, test } from 'node:test';
import { freePort, until } from '../support/portico.js';
import { httpsGet } from '../support/certs.js';
import { backend, httpRoute, mustBeAccepted, startConformance, type Conformance } from './harness.js';
import { INFRA_NS as NS } from './base.js';
import { mismatch, type Expected } from './expect.js';

const V1 = 'infra-backend-v1';
const V2 = 'infra-backend-v2';
const V3 = 'infra-backend-v3';

/** A Gateway of the infra namespace with these HTTP listeners (routes of its own namespace unless `from` says). */
function gateway(name: string, listeners: readonly { name: string; port: number; hostname?: string; from?: string }[]): unknown {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'Gateway',
    metadata: { name, namespace: NS },
    spec: {
      gatewayClassName: 'portico-conformance',
      listeners: listeners.map((l) => ({
        name: l.name,
        port: l.port,
        protocol: 'HTTP',
        ...(l.hostname === undefined ? {} : { hostname: l.hostname }),
        allowedRoutes: { kinds: [{ kind: 'HTTPRoute' }], namespaces: { from: l.from ?? 'Same' } },
      })),
    },
  };
}
const parent = (name: string, more: Record<string, unknown> = {}): Record<string, unknown> => ({ name, namespace: NS, ...more });

/** A rule redirecting PathPrefix `path` with these RequestRedirect fields (hostname example.org unless given). */
const redirectRule = (path: string, r: Record<string, unknown>): Record<string, unknown> => ({
  matches: [{ path: { type: 'PathPrefix', value: path } }],
  filters: [{ type: 'RequestRedirect', requestRedirect: { hostname: 'example.org', ...r } }],
});
/** A 302 to `scheme`://example.org[:port] of the request's path. */
const redirected = (path: string, scheme: string, port?: string, host?: string): Expected => ({
  request: { path, ...(host === undefined ? {} : { host }) },
  response: { statusCode: 302 },
  redirectRequest: { scheme, host: 'example.org', ...(port === undefined ? {} : { port }) },
});

describe('GATEWAY-HTTP conformance: listeners on other ports', () => {
  let c: Conformance;
  const local = { 8080: 0, 8090: 0, 8443: 0 };
  before(async () => {
    for (const p of [8080, 8090, 8443] as const) local[p] = await freePort();
    c = await startConformance(['--gateway-port-map', `8080=${local[8080]},8090=${local[8090]},8443=${local[8443]}`]);
  });
  after(async () => {
    await c?.stop();
  });

  test('HTTPRouteListenerPortMatching', async () => {
    const gw = 'httproute-listener-port-matching';
    await c.apply([
      gateway(gw, [
        { name: 'listener-1', port: 80, hostname: 'foo.com' },
        { name: 'listener-2', port: 8080, hostname: 'foo.com' },
        { name: 'listener-3', port: 8080, hostname: 'bar.com' },
        { name: 'listener-4', port: 8090, hostname: 'foo.com' },
        { name: 'listener-5', port: 8090, hostname: 'bar.com' },
      ]),
      httpRoute('backend-v1', { parentRefs: [parent(gw, { port: 80 })], rules: [{ backendRefs: [backend(V1)] }] }),
      httpRoute('backend-v2', { parentRefs: [parent(gw, { port: 8080 })], rules: [{ backendRefs: [backend(V2)] }] }),
      httpRoute('backend-v3', { parentRefs: [parent(gw, { port: 8090, sectionName: 'listener-4' })], rules: [{ backendRefs: [backend(V3)] }] }),
    ]);
    await mustBeAccepted(c, gw, [
      [NS, 'backend-v1'],
      [NS, 'backend-v2'],
      [NS, 'backend-v3'],
    ]);
    const at = (host: string, b: string): Expected => ({ request: { host, path: '/' }, backend: b, namespace: NS });
    await c.expect(at('foo.com', V1));
    await c.expect(at('foo.com:8080', V2), local[8080]);
    await c.expect(at('bar.com:8080', V2), local[8080]);
    await c.expect(at('foo.com:8090', V3), local[8090]);
    await c.expect({ request: { host: 'bar.com:8090', path: '/' }, response: { statusCode: 404 } }, local[8090]);
  });

  test('GatewayWithAttachedRoutesWithPort8080', async () => {
    const gw = 'gateway-with-two-listeners-and-one-attached-route';
    await c.apply([
      gateway(gw, [
        { name: 'http-unattached', port: 8080, from: 'All' },
        { name: 'http', port: 80, from: 'All' },
      ]),
      httpRoute('http-route-4-port-8080', { parentRefs: [{ kind: 'Gateway', ...parent(gw), sectionName: 'http' }], rules: [{ backendRefs: [backend(V1)] }] }),
    ]);
    await c.listenersMust(gw, { 'http-unattached': 0, http: 1 });
  });

  test('HTTPRouteRedirectPortAndScheme', async () => {
    const gw8080 = 'same-namespace-with-http-listener-on-8080';
    await c.apply([
      gateway(gw8080, [{ name: 'http', port: 8080 }]),
      httpRoute('http-route-for-listener-on-port-80', {
        parentRefs: [parent('same-namespace')],
        rules: [
          redirectRule('/scheme-nil-and-port-nil', {}),
          redirectRule('/scheme-nil-and-port-80', { port: 80 }),
          redirectRule('/scheme-nil-and-port-8080', { port: 8080 }),
          redirectRule('/scheme-https-and-port-nil', { scheme: 'https' }),
          redirectRule('/scheme-https-and-port-443', { scheme: 'https', port: 443 }),
          redirectRule('/scheme-https-and-port-8443', { scheme: 'https', port: 8443 }),
        ],
      }),
      httpRoute('http-route-for-listener-on-port-8080', {
        parentRefs: [parent(gw8080)],
        rules: [redirectRule('/scheme-nil-and-port-nil', {}), redirectRule('/scheme-nil-and-port-80', { port: 80 }), redirectRule('/scheme-https-and-port-nil', { scheme: 'https' })],
      }),
      httpRoute('http-route-for-listener-on-port-443', {
        parentRefs: [parent('same-namespace-with-https-listener')],
        hostnames: ['example.org'],
        rules: [
          redirectRule('/scheme-nil-and-port-nil', {}),
          redirectRule('/scheme-nil-and-port-443', { port: 443 }),
          redirectRule('/scheme-nil-and-port-8443', { port: 8443 }),
          redirectRule('/scheme-http-and-port-nil', { scheme: 'http' }),
          redirectRule('/scheme-http-and-port-80', { scheme: 'http', port: 80 }),
          redirectRule('/scheme-http-and-port-8080', { scheme: 'http', port: 8080 }),
        ],
      }),
    ]);
    await mustBeAccepted(c, 'same-namespace', [[NS, 'http-route-for-listener-on-port-80']]);
    await mustBeAccepted(c, gw8080, [[NS, 'http-route-for-listener-on-port-8080']]);
    await mustBeAccepted(c, 'same-namespace-with-https-listener', [[NS, 'http-route-for-listener-on-port-443']]);
    // the listener on 80
    await c.expect(redirected('/scheme-nil-and-port-nil', 'http'));
    await c.expect(redirected('/scheme-nil-and-port-80', 'http'));
    await c.expect(redirected('/scheme-nil-and-port-8080', 'http', '8080'));
    await c.expect(redirected('/scheme-https-and-port-nil', 'https'));
    await c.expect(redirected('/scheme-https-and-port-443', 'https'));
    await c.expect(redirected('/scheme-https-and-port-8443', 'https', '8443'));
    // the listener on 8080: without a port the Location keeps the listener's port 8080, not the local one
    await c.expect(redirected('/scheme-nil-and-port-nil', 'http', '8080'), local[8080]);
    await c.expect(redirected('/scheme-nil-and-port-80', 'http'), local[8080]);
    await c.expect(redirected('/scheme-https-and-port-nil', 'https'), local[8080]);
    // the HTTPS listener on 443, asked over TLS with SNI example.org
    const overTls: [string, string, string?][] = [
      ['/scheme-nil-and-port-nil', 'https'],
      ['/scheme-nil-and-port-443', 'https'],
      ['/scheme-nil-and-port-8443', 'https', '8443'],
      ['/scheme-http-and-port-nil', 'http'],
      ['/scheme-http-and-port-80', 'http'],
      ['/scheme-http-and-port-8080', 'http', '8080'],
    ];
    for (const [path, scheme, port] of overTls) {
      const e = redirected(path, scheme, port, 'example.org');
      let last = '';
      await until(`https://example.org${path}: ${last}`, async () => {
        const r = await httpsGet(c.portico.https, 'example.org', path);
        const headers = Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, Array.isArray(v) ? v : [String(v)]]));
        last = mismatch(e, { status: r.status, headers, echo: undefined }) ?? '';
        return last === '';
      });
    }
  });
});
