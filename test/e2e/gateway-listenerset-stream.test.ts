// ListenerSet listeners of the stream protocols (TLS, TCP, UDP), through real nginx and the conformance harness: a
// TLSRoute (Passthrough), a TCPRoute and a UDPRoute attached to a ListenerSet's listeners are served on the listener
// ports' local ports (--gateway-port-map), as the same routes on a Gateway's own listeners are
// (test/gateway-conformance/tlsroute.test.ts, tcp-udp-routes.test.ts). Upstream v1.6.1's ListenerSet tests send HTTP
// traffic only, so these are Portico's own (test/gateway-conformance holds upstream's tests alone). Also: a
// ListenerSet of another namespace serves nothing on a Gateway whose allowedListeners do not admit it, and a
// ListenerSet's listeners take local ports as their Gateway's (one local port, one nginx section: docs/adr/0035).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeCert, type Pem } from '../support/certs.js';
import { freePort, until } from '../support/portico.js';
import { startConformance, type Conformance } from '../gateway-conformance/harness.js';
import { INFRA_NS as NS } from '../gateway-conformance/base.js';
import { tcpConversation, tcpEcho, udpEcho, udpOnce, type L4Backend } from '../gateway-conformance/l4-echo.js';
import { startTlsEcho, tlsAsk, type TlsEchoBackend } from '../gateway-conformance/tls-route-echo.js';
import type { Condition } from '../../src/model/gateway/api.js';

const G = 'gateway.networking.k8s.io';
const OTHER_NS = 'gateway-api-listenerset-stream-other';
/** Listener ports, each mapped to a free local port. */
const TLS_PORT = 8443;
const TCP_PORT = 9400;
const UDP_PORT = 5400;
const OTHER_TCP_PORT = 9401;
const OTHER_TLS_PORT = 8444;
const CLASH_PORT = 9402;
const MAX_MS = 30_000;

type Want = readonly [type: string, status: 'True' | 'False', reason?: string];
const has = (cs: readonly Condition[] | undefined, [type, status, reason]: Want): boolean =>
  cs?.some((c) => c.type === type && c.status === status && (reason === undefined || c.reason === reason)) === true;

function gateway(name: string, listeners: readonly Record<string, unknown>[], allowed: string | undefined, created = '2026-01-01T00:00:00Z'): unknown {
  return {
    apiVersion: `${G}/v1`,
    kind: 'Gateway',
    metadata: { name, namespace: NS, creationTimestamp: created },
    spec: { gatewayClassName: 'portico-conformance', listeners, ...(allowed ? { allowedListeners: { namespaces: { from: allowed } } } : {}) },
  };
}
const http80 = { name: 'http', port: 80, protocol: 'HTTP' };
const tls = (name: string, port: number, hostname: string): Record<string, unknown> => ({
  name,
  port,
  protocol: 'TLS',
  hostname,
  tls: { mode: 'Passthrough' },
  allowedRoutes: { kinds: [{ kind: 'TLSRoute' }] },
});
const l4 = (name: string, protocol: 'TCP' | 'UDP', port: number): Record<string, unknown> => ({ name, port, protocol, allowedRoutes: { kinds: [{ kind: `${protocol}Route` }] } });

function listenerSet(name: string, namespace: string, parent: string, listeners: readonly Record<string, unknown>[]): unknown {
  return {
    apiVersion: `${G}/v1`,
    kind: 'ListenerSet',
    metadata: { name, namespace, creationTimestamp: '2026-01-02T00:00:00Z' },
    spec: { parentRef: { group: G, kind: 'Gateway', name: parent, namespace: NS }, listeners },
  };
}
interface RouteTo {
  /** The ListenerSet (of the route's namespace) and its listener the route names. */
  readonly set: string;
  readonly section: string;
  readonly backend: string;
  readonly port: number;
  readonly hostnames?: readonly string[];
}
/** A route of `kind` in `namespace` attached to a listener of a ListenerSet of the same namespace. */
function route(kind: 'TLSRoute' | 'TCPRoute' | 'UDPRoute', name: string, namespace: string, to: RouteTo): unknown {
  return {
    apiVersion: `${G}/v1`,
    kind,
    metadata: { name, namespace },
    spec: {
      parentRefs: [{ group: G, kind: 'ListenerSet', name: to.set, sectionName: to.section }],
      ...(to.hostnames ? { hostnames: to.hostnames } : {}),
      rules: [{ backendRefs: [{ name: to.backend, port: to.port }] }],
    },
  };
}
/** A Service of one port and its EndpointSlice to a local backend. */
function svc(name: string, namespace: string, port: number, target: number, protocol: 'TCP' | 'UDP' = 'TCP'): unknown[] {
  return [
    { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace }, spec: { ports: [{ name: 'p', port, protocol }] } },
    {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      addressType: 'IPv4',
      metadata: { name: `${name}-1`, namespace, labels: { 'kubernetes.io/service-name': name } },
      ports: [{ name: 'p', port: target, protocol }],
      endpoints: [{ addresses: ['127.0.0.1'] }],
    },
  ];
}

describe('ListenerSet: TLS, TCP and UDP listeners through the stream section', () => {
  let c: Conformance;
  let dir = '';
  let ca: Pem;
  const local = new Map<number, number>();
  const closers: (() => Promise<void>)[] = [];
  const backends: unknown[] = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portico-conf-ls-stream-'));
    ca = makeCert(dir, 'ListenerSet stream CA', { isCa: true });
    const pem = makeCert(dir, 'tls-backend', { sans: ['abc.example.com', 'other.example.com'], ca });
    const tlsEchoes: [string, string][] = [
      ['tls-backend', NS],
      ['tls-backend', OTHER_NS],
    ];
    for (const [name, ns] of tlsEchoes) {
      const e: TlsEchoBackend = await startTlsEcho(name, ns, pem);
      closers.push(() => e.close());
      backends.push(...svc(name, ns, 443, e.port));
    }
    const l4s: [string, string, 'TCP' | 'UDP'][] = [
      ['tcp-backend', NS, 'TCP'],
      ['udp-backend', NS, 'UDP'],
      ['tcp-backend', OTHER_NS, 'TCP'],
    ];
    for (const [name, ns, protocol] of l4s) {
      const b: L4Backend = protocol === 'TCP' ? await tcpEcho(name, ns) : await udpEcho(name, ns);
      closers.push(() => b.close());
      backends.push(...svc(name, ns, 7000, b.port, protocol));
    }
    for (const p of [TLS_PORT, TCP_PORT, UDP_PORT, OTHER_TCP_PORT, OTHER_TLS_PORT, CLASH_PORT]) local.set(p, await freePort());
    c = await startConformance(['--gateway-port-map', [...local].map(([k, v]) => `${k}=${v}`).join(',')]);
  });
  after(async () => {
    await c?.stop();
    for (const close of closers) await close();
    await rm(dir, { recursive: true, force: true });
  });

  const port = (listenerPort: number): number => local.get(listenerPort) ?? 0;
  const apply = (objects: readonly unknown[]): Promise<void> => c.apply([...backends, ...objects]);

  /** The ListenerSet's conditions, and each listener named with its attachedRoutes and conditions. */
  const setMust = async (namespace: string, name: string, want: readonly Want[], listeners: Readonly<Record<string, { attached?: number; want: readonly Want[] }>> = {}): Promise<void> => {
    let seen = '';
    await until(
      `ListenerSet ${namespace}/${name}`,
      async () => {
        const s = (await c.debugGateway()).listenerSets?.find((x) => x.namespace === namespace && x.name === name);
        seen = JSON.stringify(s ?? null);
        if (!s || !want.every((w) => has(s.conditions, w))) return false;
        return Object.entries(listeners).every(([ln, w]) => {
          const l = s.listeners.find((x) => x.name === ln);
          return l !== undefined && w.want.every((x) => has(l.conditions, x)) && (w.attached === undefined || l.attachedRoutes === w.attached);
        });
      },
      MAX_MS,
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}; seen: ${seen}`);
    });
  };
  /** The route's parent entry for ListenerSet `set` has condition `want`. */
  const routeMust = async (kind: 'tlsRoutes' | 'tcpRoutes' | 'udpRoutes', namespace: string, name: string, set: string, want: Want): Promise<void> => {
    let seen = '';
    await until(
      `${kind} ${namespace}/${name} on ListenerSet ${set}: ${want.join(' ')}`,
      async () => {
        const r = (await c.debugGateway())[kind]?.find((x) => x.namespace === namespace && x.name === name);
        seen = JSON.stringify(r?.parents ?? null);
        return has(r?.parents.find((p) => p.parentRef.kind === 'ListenerSet' && p.parentRef.name === set)?.conditions, want);
      },
      MAX_MS,
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}; parents: ${seen}`);
    });
  };
  /** TLS to the listener port's local port with `sni`: answered by `backend` of `namespace`, the certificate verified. */
  const tlsReaches = async (listenerPort: number, sni: string, backend: string, namespace: string): Promise<void> => {
    let last = '';
    await until(
      `TLS ${sni} on ${String(listenerPort)} answered by ${namespace}/${backend}`,
      async () => {
        const o = await tlsAsk(port(listenerPort), sni, ca.cert);
        last = JSON.stringify(o);
        return 'answer' in o && o.answer.pod.startsWith(`${backend}-`) && o.answer.namespace === namespace && o.answer.sni === sni;
      },
      MAX_MS,
      250,
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}; last: ${last}`);
    });
  };
  const tcpReaches = async (listenerPort: number, backend: string, namespace: string): Promise<void> => {
    let last = '';
    await until(
      `TCP ${String(listenerPort)} answered by ${namespace}/${backend}`,
      async () => {
        const r = await tcpConversation(port(listenerPort), true);
        last = JSON.stringify(r);
        return typeof r !== 'string' && r.namespace === namespace && r.pod.startsWith(`${backend}-`);
      },
      MAX_MS,
      250,
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}; last: ${last}`);
    });
  };

  test('a TLSRoute (Passthrough), a TCPRoute and a UDPRoute on a ListenerSet of the same namespace are served', async () => {
    await apply([
      gateway('gateway-ls-stream', [http80], 'Same'),
      listenerSet('ls-stream', NS, 'gateway-ls-stream', [tls('tls', TLS_PORT, 'abc.example.com'), l4('tcp', 'TCP', TCP_PORT), l4('udp', 'UDP', UDP_PORT)]),
      route('TLSRoute', 'ls-tls', NS, { set: 'ls-stream', section: 'tls', backend: 'tls-backend', port: 443, hostnames: ['abc.example.com'] }),
      route('TCPRoute', 'ls-tcp', NS, { set: 'ls-stream', section: 'tcp', backend: 'tcp-backend', port: 7000 }),
      route('UDPRoute', 'ls-udp', NS, { set: 'ls-stream', section: 'udp', backend: 'udp-backend', port: 7000 }),
    ]);
    const served: Want[] = [
      ['Accepted', 'True', 'Accepted'],
      ['Programmed', 'True'],
      ['ResolvedRefs', 'True'],
    ];
    await setMust(
      NS,
      'ls-stream',
      [
        ['Accepted', 'True', 'Accepted'],
        ['Programmed', 'True', 'Programmed'],
      ],
      { tls: { attached: 1, want: served }, tcp: { attached: 1, want: served }, udp: { attached: 1, want: served } },
    );
    await routeMust('tlsRoutes', NS, 'ls-tls', 'ls-stream', ['Accepted', 'True', 'Accepted']);
    await routeMust('tcpRoutes', NS, 'ls-tcp', 'ls-stream', ['Accepted', 'True', 'Accepted']);
    await routeMust('udpRoutes', NS, 'ls-udp', 'ls-stream', ['Accepted', 'True', 'Accepted']);
    await tlsReaches(TLS_PORT, 'abc.example.com', 'tls-backend', NS);
    await tcpReaches(TCP_PORT, 'tcp-backend', NS);
    await until(
      `UDP ${String(UDP_PORT)} answered by udp-backend`,
      async () => {
        const r = await udpOnce(port(UDP_PORT), 'listenerset-udp\n');
        const a = r ? (JSON.parse(r.toString('utf8')) as { pod: string; namespace: string }) : undefined;
        return a !== undefined && a.namespace === NS && a.pod.startsWith('udp-backend-');
      },
      MAX_MS,
      250,
    );
    // an SNI no route of the listener takes is closed, as on a Gateway's own TLS listener
    const other = await tlsAsk(port(TLS_PORT), 'other.example.com', ca.cert);
    assert.ok('closed' in other, `other.example.com on the ListenerSet's TLS port: ${JSON.stringify(other)}`);
  });

  test("another namespace's ListenerSet serves no TLS or TCP listener on a Gateway that does not admit it", async () => {
    const objects = (allowed: string): unknown[] => [
      gateway('gateway-ls-same', [http80], allowed),
      listenerSet('ls-intruder', OTHER_NS, 'gateway-ls-same', [tls('tls', OTHER_TLS_PORT, 'abc.example.com'), l4('tcp', 'TCP', OTHER_TCP_PORT)]),
      route('TLSRoute', 'intruder-tls', OTHER_NS, { set: 'ls-intruder', section: 'tls', backend: 'tls-backend', port: 443, hostnames: ['abc.example.com'] }),
      route('TCPRoute', 'intruder-tcp', OTHER_NS, { set: 'ls-intruder', section: 'tcp', backend: 'tcp-backend', port: 7000 }),
    ];
    await apply(objects('Same'));
    await setMust(OTHER_NS, 'ls-intruder', [
      ['Accepted', 'False', 'NotAllowed'],
      ['Programmed', 'False', 'NotAllowed'],
    ]);
    await routeMust('tcpRoutes', OTHER_NS, 'intruder-tcp', 'ls-intruder', ['Accepted', 'False']);
    await routeMust('tlsRoutes', OTHER_NS, 'intruder-tls', 'ls-intruder', ['Accepted', 'False']);
    const tcp = await tcpConversation(port(OTHER_TCP_PORT), true);
    assert.equal(typeof tcp, 'string', `TCP ${String(OTHER_TCP_PORT)} answered: ${JSON.stringify(tcp)}`);
    const tlsOut = await tlsAsk(port(OTHER_TLS_PORT), 'abc.example.com', ca.cert);
    assert.ok('closed' in tlsOut, `TLS ${String(OTHER_TLS_PORT)} answered: ${JSON.stringify(tlsOut)}`);
    // the same objects with the Gateway admitting every namespace are served: the refusal above is allowedListeners'
    await apply(objects('All'));
    await tcpReaches(OTHER_TCP_PORT, 'tcp-backend', OTHER_NS);
    await tlsReaches(OTHER_TLS_PORT, 'abc.example.com', 'tls-backend', OTHER_NS);
  });

  test("a ListenerSet's TCP listener holds its local port as its Gateway's: a newer Gateway's HTTP listener there is not served", async () => {
    await apply([
      gateway('gateway-ls-clash', [http80], 'Same', '2025-01-01T00:00:00Z'),
      listenerSet('ls-clash', NS, 'gateway-ls-clash', [l4('tcp', 'TCP', CLASH_PORT)]),
      route('TCPRoute', 'ls-clash-tcp', NS, { set: 'ls-clash', section: 'tcp', backend: 'tcp-backend', port: 7000 }),
      gateway('gateway-ls-http-new', [{ name: 'http', port: CLASH_PORT, protocol: 'HTTP' }], undefined, '2026-06-01T00:00:00Z'),
    ]);
    await setMust(NS, 'ls-clash', [['Accepted', 'True', 'Accepted']], { tcp: { attached: 1, want: [['Accepted', 'True', 'Accepted']] } });
    let seen = '';
    await until(
      'the newer Gateway listener on the same local port PortUnavailable',
      async () => {
        const g = (await c.debugGateway()).gateways.find((x) => x.namespace === NS && x.name === 'gateway-ls-http-new');
        seen = JSON.stringify(g?.listeners ?? null);
        return has(g?.listeners.find((l) => l.name === 'http')?.conditions, ['Accepted', 'False', 'PortUnavailable']);
      },
      MAX_MS,
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}; listeners: ${seen}`);
    });
    // nginx serves the ListenerSet's TCP listener there (an http and a stream listen on one port would fail the reload)
    await tcpReaches(CLASH_PORT, 'tcp-backend', NS);
  });
});
