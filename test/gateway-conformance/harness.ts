// One Portico (local mode, real nginx) per conformance test file, with the base objects and an echo backend per
// base Service. Each test applies its own manifests (replacing the previous test's, as upstream applies and cleans
// up per test), then asks as the suite asks: a request must meet its expectation 3 times in a row within 30 s.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeCert, type Pem } from '../support/certs.js';
import { manifestFolder, type ManifestDir } from '../support/manifests.js';
import { parseAllDocuments } from 'yaml';
import { get, startPortico, until, type Running } from '../support/portico.js';
import type { GatewayDoc } from '../../src/inspect/gateway.js';
import { BACKENDS, INFRA_NS, baseObjects } from './base.js';
import { startEcho, type EchoAnswer, type EchoBackend } from './echo.js';
import { GATEWAY_HOST, mismatch, type Captured, type Expected } from './expect.js';

/** The suite's defaults (conformance/utils/config): 3 consecutive successes, at most 30 s. */
const CONSECUTIVE = 3;
const MAX_TIME_TO_CONSISTENCY_MS = 30_000;
const RETRY_DELAY_MS = 250;

export interface RouteCondition {
  readonly route: string;
  readonly namespace: string;
  readonly gateway: string;
  readonly type: string;
  readonly status: 'True' | 'False';
  readonly reason?: string;
}

export interface Conformance {
  readonly portico: Running;
  /** The certificate of the Secrets tls-validity-checks-certificate (infra) and certificate (web). */
  readonly cert: Pem;
  readonly echoes: ReadonlyMap<string, EchoBackend>;
  /** Replaces the current test's manifests with `objects` and waits until Portico holds exactly its routes. */
  apply(objects: readonly unknown[]): Promise<void>;
  /** MakeRequestAndExpectEventuallyConsistentResponse; `port`: the local port asked (default --http-port: the Gateway's port 80). */
  expect(e: Expected, port?: number): Promise<void>;
  /** One request, captured as the suite captures it. */
  roundTrip(e: Expected, port?: number): Promise<Captured>;
  /** Waits until the HTTPRoute's parent entry for `gateway` has condition `type` with `status` (and `reason`, when given). */
  routeCondition(want: RouteCondition): Promise<void>;
  debugGateway(): Promise<GatewayDoc>;
  /** Waits until Gateway `name` (infra namespace) has exactly these listeners' attachedRoutes, each Accepted and ResolvedRefs True unless `accepted` leaves it out. */
  listenersMust(gateway: string, attached: Readonly<Record<string, number>>): Promise<void>;
  stop(): Promise<void>;
}

function roundTripOn(port: number, e: Expected): Promise<Captured> {
  const setHeaders = Object.entries(e.backendSetResponseHeaders ?? {}).map(([k, v]) => `${k}:${v}`);
  const headers: Record<string, string> = { host: e.request.host ?? GATEWAY_HOST, ...e.request.headers, 'x-echo-set-header': setHeaders.join(',') };
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: e.request.path, method: e.request.method ?? 'GET', headers, agent: false, timeout: 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        let echo: EchoAnswer | undefined;
        try {
          const parsed = JSON.parse(body) as Partial<EchoAnswer>;
          if (typeof parsed.pod === 'string') echo = parsed as EchoAnswer;
        } catch {
          echo = undefined;
        }
        const h: Record<string, string[]> = {};
        for (const [name, values] of Object.entries(res.headersDistinct)) if (values !== undefined) h[name] = values;
        resolve({ status: res.statusCode ?? 0, headers: h, echo });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`timeout: ${e.request.path}`)));
    req.on('error', reject);
    req.end();
  });
}

/** The objects of a multi-document YAML text (the tests' manifests). */
export function docs(text: string): unknown[] {
  return parseAllDocuments(text).map((d) => d.toJSON() as unknown);
}

/**
 * GatewayAndHTTPRoutesMustBeAccepted and HTTPRouteMustHaveResolvedRefsConditionsTrue, read from /debug/gateway (the
 * status a leader writes): every route is Accepted and has its references resolved for `gateway`.
 */
export async function mustBeAccepted(c: Conformance, gateway: string, routes: readonly (readonly [string, string])[]): Promise<void> {
  for (const [namespace, name] of routes) {
    await c.routeCondition({ route: name, namespace, gateway, type: 'Accepted', status: 'True' });
    await c.routeCondition({ route: name, namespace, gateway, type: 'ResolvedRefs', status: 'True' });
  }
}

/** An HTTPRoute in `namespace` (the infra one by default) on Gateway same-namespace unless `spec.parentRefs` says otherwise. */
export function httpRoute(name: string, spec: Record<string, unknown>, namespace = 'gateway-conformance-infra'): unknown {
  return { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute', metadata: { name, namespace }, spec: { parentRefs: [{ name: 'same-namespace' }], ...spec } };
}

/** A backendRef to a base Service on port 8080. */
export function backend(name: string, more: Record<string, unknown> = {}): Record<string, unknown> {
  return { name, port: 8080, ...more };
}

/** A rule: PathPrefix `prefix` (none: every request), its filters, to `backends` (names of base Services). */
export function prefixRule(prefix: string | undefined, filters: readonly unknown[], ...backends: string[]): Record<string, unknown> {
  return {
    ...(prefix === undefined ? {} : { matches: [{ path: { type: 'PathPrefix', value: prefix } }] }),
    ...(filters.length > 0 ? { filters } : {}),
    ...(backends.length > 0 ? { backendRefs: backends.map((b) => backend(b)) } : {}),
  };
}

/** Requests the HTTPRoutes of `objects` answer (exact hostnames, else the Gateway address; the paths of their matches), at most 20. */
function probesOf(objects: readonly unknown[]): [string, string][] {
  const out: [string, string][] = [];
  for (const o of objects as { kind?: string; spec?: { hostnames?: string[]; rules?: { matches?: { path?: { value?: string } }[] }[] } }[]) {
    if (o.kind !== 'HTTPRoute') continue;
    const hosts = (o.spec?.hostnames ?? []).filter((h) => !h.startsWith('*'));
    const paths = (o.spec?.rules ?? []).flatMap((r) => (r.matches ?? [{}]).map((m) => m.path?.value ?? '/'));
    for (const host of hosts.length > 0 ? hosts : [GATEWAY_HOST]) for (const path of paths.length > 0 ? paths : ['/']) out.push([host, path.startsWith('/') ? path : '/']);
  }
  return out.slice(0, 20);
}

/** Starts the echo backends and Portico on the base objects (plus `extraArgs`). */
export async function startConformance(
  extraArgs: readonly string[] = [],
  opts: {
    /** Flags naming the traffic ports startPortico picks (--gateway-h2c-ports naming --http-port). */
    readonly portArgs?: (ports: { readonly http: number; readonly https: number }) => string[];
    /** An h2c echo's port behind infra-backend-v1's h2c Service port (base.ts). */
    readonly h2cPort?: number;
  } = {},
): Promise<Conformance> {
  const certDir = await mkdtemp(join(tmpdir(), 'portico-conf-cert-'));
  const cert = makeCert(certDir, 'conformance.test', { sans: ['*', '*.org', '*.wildcard.org', 'second-example.org'] });
  const echoes = new Map<string, EchoBackend>();
  for (const b of BACKENDS) echoes.set(`${b.namespace}/${b.name}`, await startEcho(b.name, b.namespace));
  const dir: ManifestDir = await manifestFolder();
  await dir.write('base.json', baseObjects(new Map([...echoes].map(([k, v]) => [k, v.port])), cert, opts.h2cPort));
  await dir.write('test.json', []);
  let portico: Running;
  try {
    portico = await startPortico(['--manifests', dir.dir, ...extraArgs], opts.portArgs === undefined ? {} : { portArgs: opts.portArgs });
  } catch (err) {
    await Promise.all([...echoes.values()].map((b) => b.close()));
    await Promise.all([dir.remove(), rm(certDir, { recursive: true, force: true })]);
    throw err;
  }
  const debugGateway = async (): Promise<GatewayDoc> => JSON.parse((await get(portico.healthz, 'localhost', '/debug/gateway')).body) as GatewayDoc;
  const routeKey = (o: unknown): string => {
    const m = (o as { kind?: string; metadata?: { name?: string; namespace?: string } }).metadata;
    return `${m?.namespace ?? 'default'}/${m?.name ?? ''}`;
  };
  const roundTrip = (e: Expected, port = portico.http): Promise<Captured> => roundTripOn(port, e);
  const probes: [string, string][] = [];
  /** Waits until Portico holds exactly the HTTPRoutes `routes` and at least the Gateways `gateways` (`namespace/name`). */
  const holding = async (routes: string[], gateways: string[]): Promise<void> => {
    const want = JSON.stringify([...routes].sort());
    await until(`Portico holding the HTTPRoutes [${routes.join(', ')}] and Gateways [${gateways.join(', ')}]`, async () => {
      const doc = await debugGateway();
      const have = new Set(doc.gateways.map((g) => `${g.namespace}/${g.name}`));
      return JSON.stringify(doc.httpRoutes.map((r) => `${r.namespace}/${r.name}`).sort()) === want && gateways.every((g) => have.has(g));
    });
  };
  return {
    portico,
    cert,
    echoes,
    debugGateway,
    roundTrip,
    apply: async (objects) => {
      // First back to no test objects at all, until nginx answers 404 where the previous test's routes answered: a
      // test whose routes reuse the previous one's names and paths then never passes on the previous configuration.
      await dir.write('test.json', []);
      await holding([], []);
      await until(
        `the previous test's routes to be gone from nginx`,
        async () => {
          const left: [string, string][] = [];
          for (const [host, path] of probes) if ((await get(portico.http, host, path)).status !== 404) left.push([host, path]);
          probes.splice(0, probes.length, ...left);
          return left.length === 0;
        },
        MAX_TIME_TO_CONSISTENCY_MS,
      );
      await dir.write('test.json', objects);
      probes.push(...probesOf(objects));
      await holding(objects.filter((o) => (o as { kind?: string }).kind === 'HTTPRoute').map(routeKey), objects.filter((o) => (o as { kind?: string }).kind === 'Gateway').map(routeKey));
    },
    expect: async (e, port) => {
      let inARow = 0;
      let last = '';
      await until(
        `${e.request.method ?? 'GET'} ${e.request.host ?? GATEWAY_HOST}${e.request.path} to meet its expectation ${CONSECUTIVE} times in a row (last: ${last})`,
        async () => {
          let why: string | undefined;
          try {
            why = mismatch(e, await roundTrip(e, port));
          } catch (err) {
            why = String(err);
          }
          if (why === undefined) return ++inARow >= CONSECUTIVE;
          last = why;
          inARow = 0;
          return false;
        },
        MAX_TIME_TO_CONSISTENCY_MS,
        RETRY_DELAY_MS,
      ).catch((err: unknown) => {
        throw new Error(`${String(err)}: ${last}`);
      });
    },
    routeCondition: async ({ route, namespace, gateway, type, status, reason }) => {
      let seen = '';
      await until(
        `${namespace}/${route}: ${type}=${status}${reason === undefined ? '' : ` ${reason}`} for Gateway ${gateway}`,
        async () => {
          const r = (await debugGateway()).httpRoutes.find((x) => x.name === route && x.namespace === namespace);
          const parent = r?.parents.find((p) => p.parentRef.name === gateway);
          const c = parent?.conditions.find((x) => x.type === type);
          seen = JSON.stringify(parent?.conditions ?? null);
          return c !== undefined && c.status === status && (reason === undefined || c.reason === reason);
        },
        MAX_TIME_TO_CONSISTENCY_MS,
      ).catch((err: unknown) => {
        throw new Error(`${String(err)}; conditions: ${seen}`);
      });
    },
    listenersMust: async (gateway, attached) => {
      let seen = '';
      await until(
        `Gateway ${gateway}: listeners ${JSON.stringify(attached)}`,
        async () => {
          const g = (await debugGateway()).gateways.find((x) => x.name === gateway && x.namespace === INFRA_NS);
          const got = Object.fromEntries((g?.listeners ?? []).map((l) => [l.name, l.attachedRoutes]));
          seen = JSON.stringify(g?.listeners ?? null);
          const ok = (g?.listeners ?? []).every((l) => ['Accepted', 'ResolvedRefs'].every((t) => l.conditions.find((c) => c.type === t)?.status === 'True'));
          return ok && JSON.stringify(got) === JSON.stringify(attached);
        },
        MAX_TIME_TO_CONSISTENCY_MS,
      ).catch((err: unknown) => {
        throw new Error(`${String(err)}; listeners: ${seen}`);
      });
    },
    stop: async () => {
      const code = await portico.stop();
      await Promise.all([...echoes.values()].map((b) => b.close()));
      await Promise.all([dir.remove(), rm(certDir, { recursive: true, force: true })]);
      assert.equal(code, 0, 'Portico exits 0 on SIGTERM');
    },
  };
}
