// Gateway API conformance (v1.6.1), reproduced through real nginx: the GATEWAY-HTTP tests of retries, CORS and the
// backend protocols of a Service port's appProtocol. Retries are seen as upstream sees them: the echo's retry
// simulation fails the first n tries of one uuid, so only a gateway that retried answers 200. Each test is named
// with the upstream ShortName; the manifests are this repository's own.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import { backend, httpRoute, mustBeAccepted, prefixRule, startConformance, type Conformance } from './harness.js';
import { INFRA_NS as NS } from './base.js';
import { mismatch, type Expected } from './expect.js';
import { until } from '../support/portico.js';

const V1 = 'infra-backend-v1';
const V3 = 'infra-backend-v3';
const CONSECUTIVE = 3;

/** A rule of one PathPrefix to `to`, with more fields (retry, filters). */
const rule = (prefix: string, to: string, more: Record<string, unknown> = {}): Record<string, unknown> => ({ ...prefixRule(prefix, [], to), ...more });
const cors = (spec: Record<string, unknown>): unknown => ({ type: 'CORS', cors: spec });

describe('GATEWAY-HTTP conformance: retries, CORS, backend protocols', () => {
  let c: Conformance;
  before(async () => {
    c = await startConformance();
  });
  after(async () => {
    await c?.stop();
  });
  const route = (name: string, rules: readonly unknown[]): Promise<void> => c.apply([httpRoute(name, { rules })]).then(() => mustBeAccepted(c, 'same-namespace', [[NS, name]]));

  /** As the suite's AwaitConvergence: `make()` gives a fresh expectation (a new uuid) each round trip; 3 in a row. */
  const converge = async (what: string, make: () => Expected): Promise<void> => {
    let inARow = 0;
    let last = '';
    await until(
      what,
      async () => {
        const e = make();
        const why = mismatch(e, await c.roundTrip(e)) ?? '';
        last = why;
        inARow = why === '' ? inARow + 1 : 0;
        return inARow >= CONSECUTIVE;
      },
      30_000,
      250,
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}: ${last}`);
    });
  };

  test('HTTPRouteRetry', async () => {
    await route('retries', [
      rule('/retry/code-500-attempts-3', V3, { retry: { codes: [500], attempts: 3 } }),
      rule('/retry/code-all-attempts-2', V3, { retry: { codes: [500, 502, 503, 504], attempts: 2 } }),
    ]);
    const cases: [string, number, number, number][] = [
      ['/retry/code-500-attempts-3', 500, 2, 200],
      ['/retry/code-500-attempts-3', 500, 4, 500],
      ['/retry/code-500-attempts-3', 503, 2, 503],
      ['/retry/code-all-attempts-2', 500, 1, 200],
      ['/retry/code-all-attempts-2', 500, 3, 500],
      ['/retry/code-all-attempts-2', 502, 1, 200],
      ['/retry/code-all-attempts-2', 502, 3, 502],
      ['/retry/code-all-attempts-2', 503, 1, 200],
      ['/retry/code-all-attempts-2', 503, 3, 503],
      ['/retry/code-all-attempts-2', 504, 1, 200],
      ['/retry/code-all-attempts-2', 504, 3, 504],
    ];
    for (const [path, code, after, want] of cases) {
      await converge(`${path} responseCode=${code} succeedAfter=${after} to answer ${want}`, () => ({
        request: { path: `${path}?${new URLSearchParams({ responseCode: String(code), succeedAfter: String(after), uuid: randomUUID() }).toString()}` },
        response: { statusCode: want },
        backend: V3,
        namespace: NS,
      }));
    }
  });

  test('HTTPRouteCORS', async () => {
    const creds = {
      allowOrigins: ['https://www.foo.com', 'https://*.bar.com'],
      allowMethods: ['GET', 'OPTIONS'],
      allowHeaders: ['x-header-1', 'x-header-2'],
      exposeHeaders: ['x-header-3', 'x-header-4'],
      allowCredentials: true,
      maxAge: 3600,
    };
    const wild = (credentials: boolean): unknown => cors({ allowOrigins: ['*'], allowMethods: ['*'], allowHeaders: ['*'], allowCredentials: credentials });
    await c.apply([
      httpRoute('cors-multiple-origins-methods-headers', { rules: [rule('/cors-1', V1, { filters: [cors(creds)] })] }),
      httpRoute('cors-wildcard-methods', { rules: [rule('/cors-2', V1, { filters: [cors({ allowOrigins: ['https://www.foo.com'], allowMethods: ['*'] })] })] }),
      httpRoute('cors-wildcard-origin', { rules: [rule('/cors-wildcard-origin', V1, { filters: [cors({ allowOrigins: ['*'], allowMethods: ['PUT'], allowCredentials: false })] })] }),
      httpRoute('cors-wildcard-methods-headers', {
        rules: [rule('/cors-wildcard-methods-headers', V1, { filters: [wild(true)] }), rule('/cors-wildcard-methods-headers-unauth', V1, { filters: [wild(false)] })],
      }),
    ]);
    await mustBeAccepted(c, 'same-namespace', [
      [NS, 'cors-multiple-origins-methods-headers'],
      [NS, 'cors-wildcard-methods'],
      [NS, 'cors-wildcard-origin'],
      [NS, 'cors-wildcard-methods-headers'],
    ]);
    const preflight = (path: string, origin: string, method: string, headers?: string): Expected['request'] => ({
      path,
      method: 'OPTIONS',
      headers: { Origin: origin, 'access-control-request-method': method, ...(headers !== undefined ? { 'access-control-request-headers': headers } : {}) },
    });
    const asked = { path: '', method: 'OPTIONS' };
    const full = (origin: string): NonNullable<Expected['response']> => ({
      statusCodes: [200, 204],
      validHeaderValues: {
        'access-control-allow-origin': [origin],
        'access-control-allow-methods': ['GET, OPTIONS', 'OPTIONS, GET'],
        'access-control-allow-headers': ['x-header-1, x-header-2', 'x-header-2, x-header-1'],
        'access-control-expose-headers': ['x-header-3, x-header-4', 'x-header-4, x-header-3'],
        'access-control-max-age': ['3600'],
        'access-control-allow-credentials': ['true'],
      },
      ignoreWhitespace: true,
    });
    const cases: Expected[] = [
      { request: preflight('/cors-1', 'https://www.foo.com', 'GET', 'x-header-1, x-header-2'), expectedRequest: asked, response: full('https://www.foo.com') },
      { request: preflight('/cors-1', 'https://www.bar.com', 'GET', 'x-header-1, x-header-2'), expectedRequest: asked, response: full('https://www.bar.com') },
      { request: preflight('/cors-1', 'https://xpto.www.bar.com', 'GET', 'x-header-1, x-header-2'), expectedRequest: asked, response: full('https://xpto.www.bar.com') },
      { request: preflight('/cors-1', 'https://foobar.com', 'GET'), expectedRequest: asked, response: { statusCodes: [200, 204, 403], absentHeaders: ['access-control-allow-origin'] } },
      ...['https://www.foo.com', 'https://www.bar.com'].map((origin): Expected => ({
        request: { path: '/cors-1', headers: { Origin: origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-header-1, x-header-2' } },
        namespace: NS,
        response: { statusCode: 200, headers: { 'access-control-allow-origin': origin } },
      })),
      { request: { path: '/cors-1', headers: { Origin: 'https://foobar.com', 'access-control-request-method': 'GET' } }, namespace: NS, response: { absentHeaders: ['access-control-allow-origin'] } },
      {
        request: preflight('/cors-2', 'https://www.foo.com', 'POST'),
        expectedRequest: asked,
        response: {
          statusCodes: [200, 204],
          validHeaderValues: { 'access-control-allow-methods': ['POST', '*'] },
          headers: { 'access-control-allow-origin': 'https://www.foo.com' },
          absentHeaders: ['access-control-allow-credentials'],
        },
      },
      ...['https://foobar.com', 'https://foobar.com:12345'].flatMap((origin): Expected[] => [
        {
          request: preflight('/cors-wildcard-origin', origin, 'PUT'),
          expectedRequest: asked,
          response: {
            statusCodes: [200, 204],
            validHeaderValues: { 'access-control-allow-origin': [origin, '*'], 'access-control-allow-methods': ['PUT'] },
            absentHeaders: ['Access-Control-Allow-Credentials'],
          },
        },
        {
          request: { path: '/cors-wildcard-origin', method: 'PUT', headers: { Origin: origin } },
          expectedRequest: { method: 'PUT' },
          namespace: NS,
          response: { statusCode: 200, validHeaderValues: { 'access-control-allow-origin': [origin, '*'] }, absentHeaders: ['Access-Control-Allow-Credentials'] },
        },
      ]),
      {
        request: preflight('/cors-wildcard-methods-headers', 'https://other.foo.com', 'PUT', 'x-header-1, x-header-2'),
        expectedRequest: asked,
        response: {
          statusCodes: [200, 204],
          validHeaderValues: {
            'access-control-allow-origin': ['https://other.foo.com'],
            'access-control-allow-methods': ['PUT'],
            'access-control-allow-headers': ['x-header-1, x-header-2', 'x-header-2, x-header-1'],
            'access-control-allow-credentials': ['true'],
          },
          ignoreWhitespace: true,
        },
      },
      {
        request: preflight('/cors-wildcard-methods-headers-unauth', 'https://other.foo.com', 'PUT', 'x-header-1, x-header-2'),
        expectedRequest: asked,
        response: {
          statusCodes: [200, 204],
          validHeaderValues: {
            'access-control-allow-origin': ['https://other.foo.com', '*'],
            'access-control-allow-methods': ['PUT', '*'],
            'access-control-allow-headers': ['x-header-1, x-header-2', 'x-header-2, x-header-1', '*'],
          },
          absentHeaders: ['access-control-allow-credentials'],
          ignoreWhitespace: true,
        },
      },
      {
        request: { path: '/cors-wildcard-methods-headers', headers: { Origin: 'https://other.foo.com' } },
        namespace: NS,
        response: { statusCode: 200, validHeaderValues: { 'access-control-allow-origin': ['https://other.foo.com'], 'access-control-allow-credentials': ['true'] } },
      },
      {
        request: { path: '/cors-wildcard-methods-headers-unauth', headers: { Origin: 'https://other.foo.com' } },
        namespace: NS,
        response: { statusCode: 200, validHeaderValues: { 'access-control-allow-origin': ['https://other.foo.com', '*'] }, absentHeaders: ['access-control-allow-credentials'] },
      },
    ];
    for (const e of cases) await c.expect(e);
  });

  test('HTTPRouteBackendProtocolWebSocket', async () => {
    await route('backend-protocol-ws', [{ backendRefs: [backend(V1, { port: 8082 })] }]);
    /** One connection through the gateway: a text and a binary message, each echoed back unchanged. */
    const roundTrip = (): Promise<string> =>
      new Promise((resolve) => {
        const ws = new WebSocket(`ws://127.0.0.1:${c.portico.http}/ws`, { origin: 'ws://gateway/HTTPRouteBackendProtocolWebSocket', handshakeTimeout: 5000 });
        const replies: { data: Buffer; binary: boolean }[] = [];
        const done = (why: string): void => {
          ws.terminate();
          resolve(why);
        };
        const timer = setTimeout(() => {
          done('no reply within 5 s');
        }, 5000);
        ws.on('error', (err) => {
          clearTimeout(timer);
          done(String(err));
        });
        ws.on('open', () => {
          ws.send('Websocket Support!');
        });
        ws.on('message', (data: Buffer, binary) => {
          replies.push({ data, binary });
          if (replies.length === 1) ws.send(Buffer.from([1, 2, 3, 4, 5, 6, 7]), { binary: true });
          if (replies.length < 2) return;
          clearTimeout(timer);
          const [text, bytes] = replies;
          const ok = text?.binary === false && text.data.toString() === 'Websocket Support!' && bytes?.binary === true && bytes.data.equals(Buffer.from([1, 2, 3, 4, 5, 6, 7]));
          done(ok ? '' : `unexpected replies ${JSON.stringify(replies.map((r) => [r.binary, r.data.toString('hex')]))}`);
        });
      });
    let inARow = 0;
    let last = '';
    await until(
      'a WebSocket to reach the backend 3 times in a row',
      async () => {
        last = await roundTrip();
        inARow = last === '' ? inARow + 1 : 0;
        return inARow >= CONSECUTIVE;
      },
      30_000,
      250,
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}: ${last}`);
    });
    assert.ok(inARow >= CONSECUTIVE);
  });
  // HTTPRouteBackendProtocolH2C needs an h2c --http-port: httproute-h2c.test.ts.
});
