// Gateway API conformance (v1.6.1), reproduced through real nginx: the extended GATEWAY-HTTP tests of which listener
// serves a request. GatewayHTTPListenerIsolation (only the most specific listener matching the request host serves
// it, with and without route hostnames intersecting the listeners') and
// HTTPRouteHTTPSListenerDetectMisdirectedRequests (421 when the Host names another listener than the SNI name chose).
// Each test is named with the upstream ShortName; the manifests are this repository's own.
import { after, before, describe, test } from 'node:test';
import http2 from 'node:http2';
import { until } from '../support/portico.js';
import { ingress, ingressClass } from '../support/objects.js';
import { httpRoute, mustBeAccepted, prefixRule, startConformance, type Conformance } from './harness.js';
import { APP_NS, INFRA_NS as NS } from './base.js';
import { mismatch, type Captured, type Expected } from './expect.js';
import type { EchoAnswer } from './echo.js';

const V1 = 'infra-backend-v1';
const V2 = 'infra-backend-v2';
const V3 = 'infra-backend-v3';
const APP = 'app-backend-v1';
const MISDIRECT_PATH = '/detect-misdirected-requests';

/** The four listeners of both isolation Gateways: port 80, from every namespace, hostnames of growing specificity. */
const LISTENERS: readonly (readonly [name: string, hostname: string | undefined])[] = [
  ['empty-hostname', undefined],
  ['wildcard-example-com', '*.example.com'],
  ['wildcard-foo-example-com', '*.foo.example.com'],
  ['abc-foo-example-com', 'abc.foo.example.com'],
];

function isolationGateway(name: string): unknown {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'Gateway',
    metadata: { name, namespace: NS },
    spec: {
      gatewayClassName: 'portico-conformance',
      listeners: LISTENERS.map(([l, hostname]) => ({ name: l, port: 80, protocol: 'HTTP', ...(hostname === undefined ? {} : { hostname }), allowedRoutes: { namespaces: { from: 'All' } } })),
    },
  };
}

/** One route per listener, by sectionName, serving the path named after the listener; `hostnames` on each when given. */
function isolationRoutes(gateway: string, suffix: string, hostnames?: readonly string[]): unknown[] {
  return LISTENERS.map(([l]) =>
    httpRoute(`attaches-to-${l}${suffix}`, { parentRefs: [{ name: gateway, namespace: NS, sectionName: l }], ...(hostnames === undefined ? {} : { hostnames }), rules: [prefixRule(`/${l}`, [], V1)] }),
  );
}

/** The upstream cases: host × listener path; only the listener that is the host's most specific serves it. */
const CASES: readonly (readonly [host: string, served: string])[] = [
  ['bar.com', 'empty-hostname'],
  ['bar.example.com', 'wildcard-example-com'],
  ['bar.foo.example.com', 'wildcard-foo-example-com'],
  ['abc.foo.example.com', 'abc-foo-example-com'],
];

function expectations(): Expected[] {
  return CASES.flatMap(([host, served]) =>
    LISTENERS.map(([l]): Expected => (l === served ? { request: { host, path: `/${l}` }, backend: V1, namespace: NS } : { request: { host, path: `/${l}` }, response: { statusCode: 404 } })),
  );
}

/** One HTTP/2 request over TLS with SNI `sni` and `:authority` `host`, captured as the suite captures it. */
function h2RoundTrip(port: number, sni: string, host: string, path: string): Promise<Captured> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(`https://127.0.0.1:${port}`, { servername: sni, rejectUnauthorized: false });
    const timer = setTimeout(() => {
      session.destroy(new Error(`timeout: ${sni} -> ${host}${path}`));
    }, 10_000);
    const fail = (err: Error): void => {
      clearTimeout(timer);
      session.destroy();
      reject(err);
    };
    session.on('error', fail);
    const req = session.request({ ':path': path, ':authority': host });
    const chunks: Buffer[] = [];
    let status = 0;
    const headers: Record<string, string[]> = {};
    req.on('response', (h) => {
      status = h[':status'] ?? 0;
      for (const [k, v] of Object.entries(h)) if (!k.startsWith(':') && v !== undefined) headers[k] = Array.isArray(v) ? v : [v];
    });
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('error', fail);
    req.on('end', () => {
      clearTimeout(timer);
      session.close();
      let echo: EchoAnswer | undefined;
      try {
        const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Partial<EchoAnswer>;
        if (typeof parsed.pod === 'string') echo = parsed as EchoAnswer;
      } catch {
        echo = undefined;
      }
      resolve({ status, headers, echo });
    });
    req.end();
  });
}

/** MakeTLSRequestAndExpectEventuallyConsistentResponse: 3 answers in a row meet the expectation, within 30 s. */
async function expectTls(port: number, sni: string, host: string, want: { readonly status: number; readonly backend?: string; readonly namespace?: string }): Promise<void> {
  const { status, backend: backendName, namespace = NS } = want;
  const e: Expected = { request: { host, path: MISDIRECT_PATH }, response: { statusCodes: [status] }, ...(backendName === undefined ? {} : { backend: backendName, namespace }) };
  let inARow = 0;
  let last = '';
  await until(
    `SNI ${sni}, Host ${host}: ${status}${backendName === undefined ? '' : ` from ${backendName}`} 3 times in a row`,
    async () => {
      let why: string | undefined;
      try {
        why = mismatch(e, await h2RoundTrip(port, sni, host, MISDIRECT_PATH));
      } catch (err) {
        why = String(err);
      }
      if (why === undefined) return ++inARow >= 3;
      last = why;
      inARow = 0;
      return false;
    },
    30_000,
    250,
  ).catch((err: unknown) => {
    throw new Error(`${String(err)}: ${last}`);
  });
}

/** The routes of the misdirected-requests test: one per listener of same-namespace-with-https-listener (base.ts). */
function misdirectRoutes(): unknown[] {
  const gw = 'same-namespace-with-https-listener';
  const route = (n: number, section: string, to: string, hostnames?: string[]): unknown =>
    httpRoute(`https-listener-detect-misdirected-requests-test-${n}`, {
      parentRefs: [{ name: gw, sectionName: section }],
      ...(hostnames ? { hostnames } : {}),
      rules: [prefixRule(MISDIRECT_PATH, [], to)],
    });
  return [route(1, 'https', V1, ['example.org']), route(2, 'https-with-hostname', V2), route(3, 'https-with-wildcard-hostname', V3), route(4, 'https-with-hostname-matching-wildcard', V1)];
}

/** The upstream cases: SNI name, Host, status, the backend that answers a 200. */
const MISDIRECT_CASES: readonly (readonly [sni: string, host: string, status: number, backend?: string])[] = [
  ['example.org', 'example.org', 200, V1],
  ['example.org', 'second-example.org', 421],
  ['example.org', 'unknown-example.org', 404],
  ['second-example.org', 'second-example.org', 200, V2],
  ['second-example.org', 'example.org', 421],
  ['second-example.org', 'unknown-example.org', 421],
  ['third-example.wildcard.org', 'third-example.wildcard.org', 200, V3],
  ['third-example.wildcard.org', 'fith-example.wildcard.org', 200, V3],
  ['third-example.wildcard.org', 'fourth-example.wildcard.org', 421],
  ['third-example.wildcard.org', 'second-example.org', 421],
  ['third-example.wildcard.org', 'unknown-example.org', 421],
  ['fourth-example.wildcard.org', 'fourth-example.wildcard.org', 200, V1],
  ['fourth-example.wildcard.org', 'fith-example.wildcard.org', 421],
  ['unknown-example.org', 'example.org', 200, V1],
  ['unknown-example.org', 'unknown-example.org', 404],
];

/** An Ingress of the app namespace (another namespace than the Gateway's and its routes') on `host`, `path` to app-backend-v1. */
function appIngress(name: string, host: string, path: string): unknown {
  return ingress(name, { namespace: APP_NS, className: 'portico', host, paths: [{ path, type: 'Prefix', service: APP, port: 8080 }] });
}

describe('GATEWAY-HTTP conformance: listener isolation and misdirected requests', () => {
  let c: Conformance;
  before(async () => {
    c = await startConformance();
  });
  after(async () => {
    await c?.stop();
  });

  test('GatewayHTTPListenerIsolation', async (t) => {
    await t.test('hostnames are configured only in listeners', async () => {
      const gw = 'http-listener-isolation';
      await c.apply([isolationGateway(gw), ...isolationRoutes(gw, '')]);
      await mustBeAccepted(
        c,
        gw,
        LISTENERS.map(([l]) => [NS, `attaches-to-${l}`]),
      );
      for (const e of expectations()) await c.expect(e);
    });
    await t.test('intersecting hostnames are configured in listeners and HTTPRoutes', async () => {
      const gw = 'http-listener-isolation-with-hostname-intersection';
      const suffix = '-with-hostname-intersection';
      await c.apply([isolationGateway(gw), ...isolationRoutes(gw, suffix, ['bar.com', '*.example.com', '*.foo.example.com', 'abc.foo.example.com'])]);
      await mustBeAccepted(
        c,
        gw,
        LISTENERS.map(([l]) => [NS, `attaches-to-${l}${suffix}`]),
      );
      for (const e of expectations()) await c.expect(e);
    });
    // Not upstream's: an Ingress of another namespace on the same hosts keeps today's behaviour, its paths served by Host.
    await t.test('an Ingress of another namespace on the isolated hosts is served as before', async () => {
      const gw = 'http-listener-isolation';
      await c.apply([
        isolationGateway(gw),
        ...isolationRoutes(gw, ''),
        ingressClass('portico'),
        appIngress('on-specific-host', 'abc.foo.example.com', '/ingress'),
        appIngress('on-wildcard-host', 'bar.example.com', '/empty-hostname'),
      ]);
      await c.expect({ request: { host: 'abc.foo.example.com', path: '/ingress' }, backend: APP, namespace: APP_NS });
      // the Ingress path, not the route of the less specific listener (which isolation keeps off this host anyway)
      await c.expect({ request: { host: 'bar.example.com', path: '/empty-hostname' }, backend: APP, namespace: APP_NS });
      // isolation between the Gateway's own listeners still holds on both hosts
      await c.expect({ request: { host: 'abc.foo.example.com', path: '/abc-foo-example-com' }, backend: V1, namespace: NS });
      await c.expect({ request: { host: 'abc.foo.example.com', path: '/wildcard-foo-example-com' }, response: { statusCode: 404 } });
      await c.expect({ request: { host: 'bar.example.com', path: '/wildcard-example-com' }, backend: V1, namespace: NS });
    });
  });

  test('HTTPRouteHTTPSListenerDetectMisdirectedRequests', async (t) => {
    const port = c.portico.https;
    await t.test('the upstream cases', async () => {
      await c.apply(misdirectRoutes());
      await mustBeAccepted(
        c,
        'same-namespace-with-https-listener',
        [1, 2, 3, 4].map((n) => [NS, `https-listener-detect-misdirected-requests-test-${n}`]),
      );
      for (const [sni, host, status, to] of MISDIRECT_CASES) await expectTls(port, sni, host, { status, ...(to === undefined ? {} : { backend: to }) });
    });
    // Not upstream's: an Ingress host is never answered 421 (ingress-nginx serves by Host).
    await t.test('an Ingress host of another namespace is never answered 421', async () => {
      await c.apply([...misdirectRoutes(), ingressClass('portico'), appIngress('misdirect-neighbour', 'ingress.example.org', MISDIRECT_PATH)]);
      // served by Host, whatever the SNI name chose
      await expectTls(port, 'second-example.org', 'ingress.example.org', { status: 200, backend: APP, namespace: APP_NS });
      // an Ingress host as SNI name: the handshake was not a listener's, the Host is served
      await expectTls(port, 'ingress.example.org', 'second-example.org', { status: 200, backend: V2 });
      // between the Gateway's listeners the check holds beside the Ingress
      await expectTls(port, 'example.org', 'second-example.org', { status: 421 });
    });
  });
});
