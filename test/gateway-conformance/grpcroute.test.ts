// Gateway API conformance (v1.6.1), reproduced through real nginx: the GRPCRoute tests of the GATEWAY-GRPC profile
// (exact method matching, header matching, listener hostnames, weights, a named rule). Upstream attaches the routes
// to HTTP listeners on port 80 and calls them over HTTP/2 cleartext with prior knowledge (h2c); Portico serves that
// only on a local port the operator declares h2c, so it runs here with --gateway-h2c-ports naming --http-port
// (docs/adr/0029). Backends are real gRPC servers (grpc-echo.ts). Each test is named with the upstream ShortName;
// the manifests are this repository's own.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { until } from '../support/portico.js';
import type { GrpcBackend } from '../support/grpc-backends.js';
import { startConformance, type Conformance } from './harness.js';
import { INFRA_NS as NS } from './base.js';
import { ECHO, ECHO_SERVICE, ECHO_THREE, ECHO_TWO, GRPC_BACKENDS, H2cClient, OK, UNIMPLEMENTED, grpcServices, startGrpcEchoes, type GrpcAnswer } from './grpc-echo.js';

const [V1, V2, V3] = GRPC_BACKENDS;
const MAX_TIME_TO_CONSISTENCY_MS = 30_000;
const CONSECUTIVE = 3;

/** A GRPCRoute of the infra namespace, on Gateway same-namespace unless `spec.parentRefs` says otherwise. */
function grpcRoute(name: string, spec: Record<string, unknown>): unknown {
  return { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'GRPCRoute', metadata: { name, namespace: NS }, spec: { parentRefs: [{ name: 'same-namespace' }], ...spec } };
}
const to = (name: string, weight?: number): Record<string, unknown> => ({ name, port: 8080, ...(weight === undefined ? {} : { weight }) });
const method = (name: string): Record<string, unknown> => ({ method: { service: ECHO_SERVICE, method: name } });
const headers = (...pairs: [string, string][]): Record<string, unknown> => ({ headers: pairs.map(([n, value]) => ({ name: n, value })) });

/** What a call must give: OK from `backend` in the infra namespace, or the gRPC status `code`. */
type Want = { readonly backend: string } | { readonly code: number };
const describeAnswer = (a: GrpcAnswer): string => (a.code === OK ? `${a.namespace ?? '?'}/${a.backend ?? '?'}` : `code ${String(a.code)} (${a.details})`);
const meets = (a: GrpcAnswer, w: Want): boolean => ('backend' in w ? a.code === OK && a.namespace === NS && a.backend === w.backend : a.code === w.code);

describe('GATEWAY-GRPC conformance: GRPCRoute on an h2c HTTP listener', () => {
  let c: Conformance;
  let grpcs: Map<string, GrpcBackend>;
  const clients = new Map<string, H2cClient>();
  /** One client per :authority (undefined: the Gateway's address), reused as the suite's client reuses connections. */
  const client = (authority?: string): H2cClient => {
    const key = authority ?? '';
    let got = clients.get(key);
    if (got === undefined) {
      got = new H2cClient(c.portico.http, authority);
      clients.set(key, got);
    }
    return got;
  };

  before(async () => {
    grpcs = await startGrpcEchoes();
    try {
      c = await startConformance([], { portArgs: ({ http }) => ['--gateway-h2c-ports', String(http)] });
    } catch (err) {
      for (const b of grpcs.values()) b.close();
      throw err;
    }
  });
  after(async () => {
    for (const cl of clients.values()) cl.close();
    await c?.stop();
    for (const b of grpcs?.values() ?? []) b.close();
  });

  /**
   * Replaces the test objects with the gRPC Services and `objects`: first nothing, until a call the previous test's
   * routes answered is UNIMPLEMENTED again (so a test never passes on the previous configuration), then `objects`.
   */
  const apply = async (objects: readonly unknown[]): Promise<void> => {
    await c.apply(grpcServices(grpcs));
    await until('the previous GRPCRoutes gone from nginx', async () => (await client().call(ECHO)).code === UNIMPLEMENTED, MAX_TIME_TO_CONSISTENCY_MS, 250);
    await c.apply([...grpcServices(grpcs), ...objects]);
  };

  /** GatewayAndRoutesMustBeAccepted for GRPCRoutes: Accepted and ResolvedRefs True for `gateway`, read from /debug/gateway. */
  const accepted = async (gateway: string, ...routes: string[]): Promise<void> => {
    let seen = '';
    await until(
      `GRPCRoutes ${routes.join(', ')} Accepted and ResolvedRefs on ${gateway}`,
      async () => {
        const doc = await c.debugGateway();
        seen = JSON.stringify(doc.grpcRoutes.map((r) => [r.name, r.parents.map((p) => p.conditions.map((x) => `${x.type}=${x.status}`))]));
        return routes.every((name) => {
          const parents = doc.grpcRoutes.find((r) => r.name === name && r.namespace === NS)?.parents.filter((p) => p.parentRef.name === gateway) ?? [];
          return parents.length > 0 && parents.every((p) => ['Accepted', 'ResolvedRefs'].every((t) => p.conditions.find((x) => x.type === t)?.status === 'True'));
        });
      },
      MAX_TIME_TO_CONSISTENCY_MS,
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}; routes: ${seen}`);
    });
  };

  /** MakeRequestAndExpectEventuallyConsistentResponse: the call meets `want` 3 times in a row within 30 s. */
  const expectCall = async (path: string, want: Want, metadata: Record<string, string> = {}, authority?: string): Promise<void> => {
    let inARow = 0;
    let last = '';
    await until(
      `${path} ${JSON.stringify(metadata)} @${authority ?? 'gateway'} to give ${JSON.stringify(want)}`,
      async () => {
        const a = await client(authority).call(path, metadata);
        last = describeAnswer(a);
        inARow = meets(a, want) ? inARow + 1 : 0;
        return inARow >= CONSECUTIVE;
      },
      MAX_TIME_TO_CONSISTENCY_MS,
      250,
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}; last: ${last}`);
    });
  };

  test('GRPCExactMethodMatching', async () => {
    await apply([
      grpcRoute('exact-matching', {
        rules: [
          { matches: [method('Echo')], backendRefs: [to(V1)] },
          { matches: [method('EchoTwo')], backendRefs: [to(V2)] },
        ],
      }),
    ]);
    await accepted('same-namespace', 'exact-matching');
    await expectCall(ECHO, { backend: V1 });
    await expectCall(ECHO_TWO, { backend: V2 });
    await expectCall(ECHO_THREE, { code: UNIMPLEMENTED });
  });

  test('GRPCRouteHeaderMatching', async () => {
    await apply([
      grpcRoute('grpc-header-matching', {
        rules: [
          { matches: [headers(['version', 'one'])], backendRefs: [to(V1)] },
          { matches: [headers(['version', 'two'])], backendRefs: [to(V2)] },
          { matches: [headers(['version', 'two'], ['color', 'orange'])], backendRefs: [to(V1)] },
          { matches: [headers(['color', 'blue']), headers(['color', 'green'])], backendRefs: [to(V1)] },
          { matches: [headers(['color', 'red']), headers(['color', 'yellow'])], backendRefs: [to(V2)] },
        ],
      }),
    ]);
    await accepted('same-namespace', 'grpc-header-matching');
    const cases: [Record<string, string>, Want][] = [
      [{ Version: 'one' }, { backend: V1 }],
      [{ Version: 'two' }, { backend: V2 }],
      [{ Version: 'two', Color: 'orange' }, { backend: V1 }],
      [{ Version: 'two', Color: 'blue' }, { backend: V2 }],
      [{ Color: 'orange' }, { code: UNIMPLEMENTED }],
      [{ 'Some-Other-Header': 'one' }, { code: UNIMPLEMENTED }],
      [{ Color: 'blue' }, { backend: V1 }],
      [{ Color: 'green' }, { backend: V1 }],
      [{ Color: 'red' }, { backend: V2 }],
      [{ Color: 'yellow' }, { backend: V2 }],
      [{ Color: 'purple' }, { code: UNIMPLEMENTED }],
    ];
    for (const [md, want] of cases) await expectCall(ECHO, want, md);
  });

  test('GRPCRouteListenerHostnameMatching', async () => {
    const gw = 'grpcroute-listener-hostname-matching';
    const listener = (name: string, hostname: string): unknown => ({ name, port: 80, protocol: 'HTTP', hostname, allowedRoutes: { namespaces: { from: 'Same' } } });
    const parent = (sectionName: string): unknown => ({ name: gw, namespace: NS, sectionName });
    await apply([
      {
        apiVersion: 'gateway.networking.k8s.io/v1',
        kind: 'Gateway',
        metadata: { name: gw, namespace: NS },
        spec: {
          gatewayClassName: 'portico-conformance',
          listeners: [listener('listener-1', 'bar.com'), listener('listener-2', 'foo.bar.com'), listener('listener-3', '*.bar.com'), listener('listener-4', '*.foo.com')],
        },
      },
      grpcRoute('backend-v1', { parentRefs: [parent('listener-1')], rules: [{ backendRefs: [to(V1)] }] }),
      grpcRoute('backend-v2', { parentRefs: [parent('listener-2')], rules: [{ backendRefs: [to(V2)] }] }),
      grpcRoute('backend-v3', { parentRefs: [parent('listener-3'), parent('listener-4')], rules: [{ backendRefs: [to(V3)] }] }),
    ]);
    await accepted(gw, 'backend-v1', 'backend-v2', 'backend-v3');
    const cases: [string, Want][] = [
      ['bar.com', { backend: V1 }],
      ['foo.bar.com', { backend: V2 }],
      ['baz.bar.com', { backend: V3 }],
      ['boo.bar.com', { backend: V3 }],
      ['multiple.prefixes.bar.com', { backend: V3 }],
      ['multiple.prefixes.foo.com', { backend: V3 }],
      ['foo.com', { code: UNIMPLEMENTED }],
      ['no.matching.host', { code: UNIMPLEMENTED }],
    ];
    for (const [authority, want] of cases) await expectCall(ECHO, want, {}, authority);
  });

  test('GRPCRouteWeight', async () => {
    await apply([grpcRoute('weighted-backends', { rules: [{ backendRefs: [to(V1, 70), to(V2, 30), to(V3, 0)] }] })]);
    await accepted('same-namespace', 'weighted-backends');
    await expectCall(ECHO, { code: OK });
    // The suite's distribution check (weight.TestWeightedDistribution): 500 calls, 10 at a time, each share within 5
    // points of its weight, weight 0 never answering; up to 10 tries.
    const want = new Map<string, number>([
      [V1, 0.7],
      [V2, 0.3],
      [V3, 0],
    ]);
    const errors: string[] = [];
    for (let attempt = 0; attempt < 10; attempt++) {
      const seen = new Map<string, number>();
      for (let batch = 0; batch < 50; batch++) {
        const got = await Promise.all(Array.from({ length: 10 }, (_, i) => client().call(ECHO, { 'x-entropy': String(batch * 10 + i) })));
        for (const a of got) {
          assert.equal(a.code, OK, describeAnswer(a));
          assert.equal(a.namespace, NS);
          seen.set(a.backend ?? '?', (seen.get(a.backend ?? '?') ?? 0) + 1);
        }
      }
      const off = [...want].filter(([name, share]) => Math.abs((seen.get(name) ?? 0) / 500 - share) > 0.05 || (share === 0 && seen.has(name)));
      if (off.length === 0 && [...seen.keys()].every((k) => (want.get(k) ?? 0) > 0)) return;
      errors.push(JSON.stringify(Object.fromEntries(seen)));
    }
    assert.fail(`the distribution missed the weights in 10 tries: ${errors.join('; ')}`);
  });

  test('GRPCRouteNamedRule', async () => {
    await apply([
      grpcRoute('grpc-named-rules', {
        rules: [
          { name: 'named-rule', matches: [method('Echo')], backendRefs: [to(V1)] },
          { matches: [method('EchoTwo')], backendRefs: [to(V2)] },
        ],
      }),
    ]);
    await accepted('same-namespace', 'grpc-named-rules');
    await expectCall(ECHO, { backend: V1 });
    await expectCall(ECHO_TWO, { backend: V2 });
  });
});
