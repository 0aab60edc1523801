// Gateway API conformance (v1.6.1), reproduced through real nginx: TLSRoute on TLS listeners in Terminate mode and on
// one port shared by a Terminate and a Passthrough listener (features TLSRouteModeTerminate, TLSRouteModeMixed:
// docs/adr/0032). Each test is named with the upstream ShortName; the manifests are this repository's own. The
// listener ports 8443 and 8883 are given free local ports with --gateway-port-map (ADR 0021).
import { after, before, describe, test } from 'node:test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeCert, type Pem } from '../support/certs.js';
import { freePort, until } from '../support/portico.js';
import { service, slice } from '../support/objects.js';
import { tlsSecret } from '../support/tls-manifests.js';
import { startConformance, type Conformance } from './harness.js';
import { INFRA_NS as NS } from './base.js';
import { lineEcho, talk, type LineEcho } from './tls-term-echo.js';

const G = 'gateway.networking.k8s.io';
const CONSECUTIVE = 3;
const MAX_MS = 30_000;
const CERT = 'tls-terminate-checks-certificate';

function gw(name: string, listeners: readonly Record<string, unknown>[]): unknown {
  return { apiVersion: `${G}/v1`, kind: 'Gateway', metadata: { name, namespace: NS }, spec: { gatewayClassName: 'portico-conformance', listeners } };
}

/** A TLS listener admitting TLSRoutes of its namespace: Terminate with the test certificate, or Passthrough. */
function tlsListener(name: string, port: number, hostname: string, mode: 'Terminate' | 'Passthrough'): Record<string, unknown> {
  const tls = mode === 'Terminate' ? { mode, certificateRefs: [{ name: CERT }] } : { mode };
  return { name, port, protocol: 'TLS', hostname, allowedRoutes: { namespaces: { from: 'Same' }, kinds: [{ kind: 'TLSRoute' }] }, tls };
}

function tlsRoute(name: string, parent: string, hostname: string, port: number): unknown {
  return {
    apiVersion: `${G}/v1`,
    kind: 'TLSRoute',
    metadata: { name, namespace: NS },
    spec: { parentRefs: [{ name: parent, namespace: NS }], hostnames: [hostname], rules: [{ backendRefs: [{ name: 'tcp-backend', port }] }] },
  };
}

describe('GATEWAY-TLS conformance: TLSRoute on TLS Terminate listeners, and Terminate beside Passthrough on one port', () => {
  let c: Conformance;
  let dir = '';
  let ca: Pem;
  const local = { 8443: 0, 8883: 0 };
  const echoes: LineEcho[] = [];
  let fixed: unknown[] = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portico-conf-tlsterm-'));
    ca = makeCert(dir, 'TLSRoute terminate conformance CA', { isCa: true });
    // The Gateway's certificate (tls.example.com, terminate.example.com) and the TLS backend's own (abc.example.com).
    const gatewayPem = makeCert(dir, 'tls.example.com', { sans: ['tls.example.com', 'terminate.example.com'], ca });
    const backendPem = makeCert(dir, 'abc.example.com', { sans: ['abc.example.com'], ca });
    const plain = await lineEcho('tcp-backend', NS);
    const tls = await lineEcho('tcp-backend', NS, backendPem);
    echoes.push(plain, tls);
    fixed = [
      service('tcp-backend', NS, [
        { name: 'tcp', port: 3000 },
        { name: 'tls', port: 8443 },
      ]),
      slice('tcp-backend', plain.port, ['127.0.0.1'], { namespace: NS, portName: 'tcp', name: 'tcp-backend-tcp' }),
      slice('tcp-backend', tls.port, ['127.0.0.1'], { namespace: NS, portName: 'tls', name: 'tcp-backend-tls' }),
      tlsSecret(CERT, gatewayPem, NS),
    ];
    local[8443] = await freePort();
    local[8883] = await freePort();
    c = await startConformance(['--gateway-port-map', `8443=${local[8443]},8883=${local[8883]}`]);
  });
  after(async () => {
    await c?.stop();
    for (const e of echoes) await e.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** Applies the test's objects (with the backend and the certificate) and waits until Portico holds its TLSRoutes. */
  const apply = async (objects: readonly unknown[]): Promise<void> => {
    await c.apply([...fixed, ...objects]);
    const want = objects.filter((o) => (o as { kind?: string }).kind === 'TLSRoute').map((o) => (o as { metadata: { name: string } }).metadata.name);
    await until(`TLSRoutes [${want.join(', ')}] held`, async () => {
      const have = (await c.debugGateway()).tlsRoutes.map((r) => r.name);
      return want.every((n) => have.includes(n));
    });
  };

  /** GatewayAndTLSRoutesMustBeAccepted for one route: its parent entry for `gateway` is Accepted and ResolvedRefs True. */
  const accepted = async (route: string, gateway: string): Promise<void> => {
    let seen = '';
    await until(
      `TLSRoute ${route} accepted by ${gateway}`,
      async () => {
        const r = (await c.debugGateway()).tlsRoutes.find((x) => x.name === route && x.namespace === NS);
        const conds = r?.parents.find((p) => p.parentRef.name === gateway)?.conditions ?? [];
        seen = JSON.stringify(conds);
        return ['Accepted', 'ResolvedRefs'].every((t) => conds.some((x) => x.type === t && x.status === 'True'));
      },
      MAX_MS,
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}; conditions: ${seen}`);
    });
  };

  /** GatewayStatusMustHaveListeners: each named listener with its attachedRoutes, supportedKinds TLSRoute and Accepted `status`/`reason`. */
  const listeners = async (gateway: string, want: Readonly<Record<string, number>>, status: 'True' | 'False', reason: string): Promise<void> => {
    let seen = '';
    await until(
      `Gateway ${gateway}: listeners ${JSON.stringify(want)} Accepted ${status} ${reason}`,
      async () => {
        const ls = (await c.debugGateway()).gateways.find((g) => g.name === gateway && g.namespace === NS)?.listeners ?? [];
        seen = JSON.stringify(ls);
        return Object.entries(want).every(([name, attached]) => {
          const l = ls.find((x) => x.name === name);
          const kinds = status === 'True' ? JSON.stringify(l?.supportedKinds.map((k) => `${k.group ?? ''}/${k.kind}`)) === JSON.stringify([`${G}/TLSRoute`]) : true;
          return l !== undefined && l.attachedRoutes === attached && kinds && l.conditions.some((x) => x.type === 'Accepted' && x.status === status && x.reason === reason);
        });
      },
      MAX_MS,
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}; listeners: ${seen}`);
    });
  };

  /**
   * MakeTCPRequestAndExpectEventuallyValidResponse with TLS: a TLS connection to the listener port with SNI `sni`,
   * Portico's (or the backend's) certificate verified for it against the CA, the line protocol answered by
   * tcp-backend of the infra namespace `CONSECUTIVE` times in a row; `backendTls`: the backend terminated TLS itself
   * (Passthrough, and then saw `sni`), else it got plain bytes and no SNI.
   */
  const reaches = async (port: 8443 | 8883, sni: string, backendTls: boolean): Promise<void> => {
    let inARow = 0;
    let last = '';
    await until(
      `${sni} on ${port} to reach tcp-backend (${backendTls ? 'TLS' : 'plain'}) ${CONSECUTIVE} times in a row`,
      async () => {
        const t = await talk(local[port], sni, ca.cert);
        last = JSON.stringify(t);
        const ok = 'test' in t && t.isTls === String(backendTls) && t.test.pod.startsWith('tcp-backend-') && t.test.namespace === NS && t.test.sni === (backendTls ? sni : '');
        inARow = ok ? inARow + 1 : 0;
        return inARow >= CONSECUTIVE;
      },
      MAX_MS,
      250,
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}; last: ${last}`);
    });
  };

  test('TLSRouteTerminateSimpleSameNamespace', async () => {
    await apply([
      gw('gateway-tlsroute-terminate', [tlsListener('tlsterminate', 8443, 'tls.example.com', 'Terminate')]),
      tlsRoute('tlsroute-terminated-test', 'gateway-tlsroute-terminate', 'tls.example.com', 3000),
    ]);
    await accepted('tlsroute-terminated-test', 'gateway-tlsroute-terminate');
    await reaches(8443, 'tls.example.com', false);
  });

  test('TLSRouteListenerTerminateSupportedKinds', async () => {
    await apply([gw('gateway-tlsroute-terminate-supported', [tlsListener('tls-terminate', 8443, 'terminate.example.com', 'Terminate')])]);
    await listeners('gateway-tlsroute-terminate-supported', { 'tls-terminate': 0 }, 'True', 'Accepted');
  });

  // Upstream returns at once when TLSRouteModeTerminate is claimed, as Portico does: what the claim means instead is
  // that the listener is Accepted, not UnsupportedValue.
  test('TLSRouteListenerTerminateNotSupported', async () => {
    await apply([gw('gateway-tlsroute-terminate-unsupported', [tlsListener('tls-terminate', 8443, 'terminate.example.com', 'Terminate')])]);
    await listeners('gateway-tlsroute-terminate-unsupported', { 'tls-terminate': 0 }, 'True', 'Accepted');
  });

  // Upstream returns at once when TLSRouteModeMixed is claimed, as Portico does: both listeners are then Accepted,
  // not ProtocolConflict.
  test('TLSRouteListenerMixedTerminationNotSupported', async () => {
    await apply([
      gw('gateway-tlsroute-mixed-termination-not-supported', [
        tlsListener('tls-terminate', 8443, 'terminate.example.com', 'Terminate'),
        tlsListener('tls-passthrough', 8443, 'passthrough.example.com', 'Passthrough'),
      ]),
    ]);
    await listeners('gateway-tlsroute-mixed-termination-not-supported', { 'tls-terminate': 0, 'tls-passthrough': 0 }, 'True', 'Accepted');
  });

  test('TLSRouteMixedTerminationSameNamespace', async () => {
    const gateway = 'gateway-tlsroute-mixed-termination';
    await apply([
      gw(gateway, [tlsListener('tls-terminate', 8883, 'tls.example.com', 'Terminate'), tlsListener('tls-passthrough', 8883, 'abc.example.com', 'Passthrough')]),
      tlsRoute('gateway-conformance-mixed-passthroughroute', gateway, 'abc.example.com', 8443),
      tlsRoute('gateway-conformance-mixed-terminateroute', gateway, 'tls.example.com', 3000),
    ]);
    await accepted('gateway-conformance-mixed-passthroughroute', gateway);
    await listeners(gateway, { 'tls-terminate': 1, 'tls-passthrough': 1 }, 'True', 'Accepted');
    await accepted('gateway-conformance-mixed-terminateroute', gateway);
    await Promise.all([reaches(8883, 'tls.example.com', false), reaches(8883, 'abc.example.com', true)]);
  });
});
