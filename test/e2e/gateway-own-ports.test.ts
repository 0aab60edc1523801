// End to end, local mode, real nginx: a Gateway given local ports of its own by per-Gateway entries of
// --gateway-port-map (docs/adr/0030), attacked from another namespace. team-b's Gateway has the same name, the same
// listener ports and an older creationTimestamp, and so do its routes: on one local port they would win. Each Gateway
// is served on its own local ports only: team-b's routes never answer on team-a's ports, its listener on a port only
// team-a's entries list is PortUnavailable, and its route naming team-a's Gateway is not admitted.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { startBackend, type Backend } from '../support/backends.js';
import { manifestDir, serviceFor, writeManifests } from '../support/manifests.js';
import { freePort, get, startPortico, until, who, type Running } from '../support/portico.js';
import { gatewayClass, httpRoute } from '../support/gateway.js';
import { httpsGet, makeCert } from '../support/certs.js';
import { tlsSecret } from '../support/tls-manifests.js';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GatewayDoc } from '../../src/inspect/gateway.js';

const OLD = '2026-01-01T00:00:00Z';
const NEW = '2026-06-01T00:00:00Z';

/** Gateway `namespace`/web: HTTP listeners on 80 and 8080 and an HTTPS listener for secure.test on 443, admitting routes of its own namespace. */
function web(namespace: string, created: string): unknown {
  const listener = (name: string, port: number): unknown => ({ name, port, protocol: 'HTTP', allowedRoutes: { namespaces: { from: 'Same' } } });
  const https = {
    name: 'https',
    port: 443,
    protocol: 'HTTPS',
    hostname: 'secure.test',
    tls: { certificateRefs: [{ kind: 'Secret', group: '', name: 'cert' }] },
    allowedRoutes: { namespaces: { from: 'Same' } },
  };
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'Gateway',
    metadata: { name: 'web', namespace, creationTimestamp: created },
    spec: { gatewayClassName: 'portico', listeners: [listener('http', 80), listener('alt', 8080), https] },
  };
}

/** A route on `parent` (Gateway web of `parentNs`), PathPrefix /, to Service app of its namespace. */
function root(name: string, namespace: string, created: string, parentNs: string, hostnames: string[] = []): unknown {
  const r = httpRoute(
    name,
    { parentRefs: [{ name: 'web', namespace: parentNs }], hostnames, rules: [{ matches: [{ path: { type: 'PathPrefix', value: '/' } }], backendRefs: [{ name: 'app', port: 80 }] }] },
    namespace,
  ) as { metadata: Record<string, unknown> };
  return { ...r, metadata: { ...r.metadata, creationTimestamp: created } };
}

describe("a Gateway on its own local ports is not served another namespace's routes", () => {
  let backends: Backend[] = [];
  let dir = '';
  let certDir = '';
  let p: Running;
  const local = { http: 0, alt: 0, https: 0 };
  const doc = async (): Promise<GatewayDoc> => JSON.parse((await get(p.healthz, 'localhost', '/debug/gateway')).body) as GatewayDoc;

  before(async () => {
    backends = await Promise.all(['a', 'b'].map((id) => startBackend(id)));
    const [a, b] = backends as [Backend, Backend];
    local.http = await freePort();
    local.alt = await freePort();
    local.https = await freePort();
    certDir = await mkdtemp(join(tmpdir(), 'portico-own-ports-'));
    const cert = makeCert(certDir, 'secure.test', { sans: ['secure.test'] });
    dir = await manifestDir();
    await writeManifests(dir, 'all.yaml', [
      gatewayClass('portico'),
      ...serviceFor('app', [a], { namespace: 'team-a' }),
      ...serviceFor('app', [b], { namespace: 'team-b' }),
      tlsSecret('cert', cert, 'team-a'),
      tlsSecret('cert', cert, 'team-b'),
      web('team-a', NEW),
      root('root', 'team-a', NEW, 'team-a'),
      web('team-b', OLD),
      root('root', 'team-b', OLD, 'team-b'),
      root('exact-host', 'team-b', OLD, 'team-b', ['a.test']),
      // names team-a's Gateway: its listeners admit routes of team-a only
      root('hijack', 'team-b', OLD, 'team-a'),
    ]);
    p = await startPortico(['--manifests', dir, '--gateway-port-map', `team-a/web:80=${String(local.http)},team-a/web:8080=${String(local.alt)},team-a/web:443=${String(local.https)}`]);
  });
  after(async () => {
    assert.equal(await p?.stop(), 0);
    await Promise.all(backends.map((b) => b.close()));
    await rm(dir, { recursive: true, force: true });
    await rm(certDir, { recursive: true, force: true });
  });

  test("team-a's local ports answer with team-a's route only; --http-port with team-b's", async () => {
    await until('team-a on its own port', async () => (await who(local.http, 'any.test', '/')) === 'a');
    await until('team-b on --http-port', async () => (await who(p.http, 'any.test', '/')) === 'b');
    assert.deepEqual(
      [await who(local.http, 'any.test', '/x'), await who(local.http, 'a.test', '/'), await who(local.alt, 'any.test', '/'), await who(local.alt, 'a.test', '/y'), await who(p.http, 'a.test', '/')],
      ['a', 'a', 'a', 'a', 'b'],
    );
    // HTTPS: team-a's listener for secure.test on its own local port; on --https-port team-b's (its HTTP listener's routes are answered over HTTPS too)
    const backendOf = async (port: number): Promise<string> => {
      const r = await httpsGet(port, 'secure.test', '/');
      const b = r.headers['x-backend'];
      return r.status === 200 && typeof b === 'string' ? b : String(r.status);
    };
    await until('team-a over HTTPS on its own port', async () => (await backendOf(local.https)) === 'a');
    assert.deepEqual([await backendOf(local.https), await backendOf(p.https)], ['a', 'b']);
    // Certificates are per host, not per port: secure.test's TLS stays its oldest claimant's (team-b) on every port,
    // team-a's own included, and team-a's certificateRef is reported (docs/gateway-api.md, Gateways on their own ports).
    await until("team-a's certificateRef reported", () =>
      p.output.some((l) => l.includes('Gateway team-a/web spec.listeners[2].tls.certificateRefs[0]') && l.includes('whose owner is namespace team-b')),
    );
  });

  test("team-b's listener on a port only team-a's entries list is PortUnavailable; its route on team-a's Gateway is not admitted", async () => {
    let gateways: GatewayDoc['gateways'] = [];
    await until('both Gateways judged', async () => {
      gateways = (await doc()).gateways;
      return gateways.length === 2;
    });
    const accepted = (ns: string): string[] => (gateways.find((g) => g.namespace === ns)?.listeners ?? []).map((l) => `${l.name} ${l.conditions.find((c) => c.type === 'Accepted')?.reason ?? ''}`);
    assert.deepEqual(accepted('team-a'), ['http Accepted', 'alt Accepted', 'https Accepted']);
    assert.deepEqual(accepted('team-b'), ['http Accepted', 'alt PortUnavailable', 'https Accepted']);
    const hijack = (await doc()).httpRoutes.find((r) => r.namespace === 'team-b' && r.name === 'hijack');
    const cond = hijack?.parents[0]?.conditions.find((c) => c.type === 'Accepted');
    assert.deepEqual([cond?.status, cond?.reason], ['False', 'NotAllowedByListeners']);
  });
});
