// Gateway API conformance (v1.6.1), the tests of spec.addresses: GatewayStaticAddresses (an unsupported type is not
// Accepted, an address Portico may not claim is not Programmed, a usable one is the Gateway's only status address) and
// GatewayOptionalAddressValue (an entry with a type only gets an address). Portico runs in local mode with
// --publish-status-address 127.0.0.1 (its own address) and --gateway-static-addresses 127.0.0.2,127.0.0.3 (the suite's
// usable addresses); 192.0.2.10 (TEST-NET-1) stands for the suite's unusable one. The status read is /debug/gateway,
// the one the leader writes. Beyond upstream: the claimed address serves the Gateway's routes, and another
// namespace's Gateway cannot take an address a Gateway holds (docs/adr/0037). Manifests are this repository's own.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { freePort, until } from '../support/portico.js';
import { backend, httpRoute, startConformance, type Conformance } from './harness.js';
import { INFRA_NS, WEB_NS } from './base.js';
import type { GatewayDoc } from '../../src/inspect/gateway.js';

const WAIT_MS = 30_000;
const USABLE = '127.0.0.2';
const UNUSABLE = '192.0.2.10';

type Address = { type?: string; value?: string };
type GatewayEntry = GatewayDoc['gateways'][number];

/** A Gateway with one HTTP listener on 8080 (routes from every namespace) and these spec.addresses. */
function gateway(name: string, addresses: readonly Address[], more: { namespace?: string; created?: string } = {}): unknown {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'Gateway',
    metadata: { name, namespace: more.namespace ?? INFRA_NS, ...(more.created ? { creationTimestamp: more.created } : {}) },
    spec: { gatewayClassName: 'portico-conformance', addresses, listeners: [{ name: 'http', port: 8080, protocol: 'HTTP', allowedRoutes: { namespaces: { from: 'All' } } }] },
  };
}

/** One GET to `address`:`port` with Host `host`: the status and the echo's pod name ('' when none answered). */
function getAt(address: string, port: number, host: string, path: string): Promise<{ status: number; pod: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: address, port, path, headers: { host }, agent: false, timeout: 5_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        let pod = '';
        try {
          pod = String((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { pod?: unknown }).pod ?? '');
        } catch {
          pod = '';
        }
        resolve({ status: res.statusCode ?? 0, pod });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`timeout: ${address}:${String(port)}`)));
    req.on('error', reject);
    req.end();
  });
}

describe('GATEWAY-HTTP conformance: Gateway addresses', () => {
  let c: Conformance;
  let local8080 = 0;
  before(async () => {
    local8080 = await freePort();
    c = await startConformance(['--gateway-port-map', `8080=${String(local8080)}`, '--publish-status-address', '127.0.0.1', '--gateway-static-addresses', `${USABLE},127.0.0.3`]);
  });
  after(async () => {
    await c?.stop();
  });

  /** Waits until Gateway `name` meets `ok`; the failure shows what it last was. */
  const gatewayMust = async (what: string, name: string, ok: (g: GatewayEntry) => boolean, namespace = INFRA_NS): Promise<GatewayEntry> => {
    let seen: GatewayEntry | undefined;
    await until(
      `Gateway ${namespace}/${name}: ${what}`,
      async () => {
        seen = (await c.debugGateway()).gateways.find((g) => g.name === name && g.namespace === namespace);
        return seen !== undefined && ok(seen);
      },
      WAIT_MS,
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}; last: ${JSON.stringify(seen ?? null)}`);
    });
    assert.ok(seen);
    return seen;
  };
  const has = (g: GatewayEntry, type: string, status: string, reason?: string): boolean =>
    g.conditions.some((x) => x.type === type && x.status === status && (reason === undefined || x.reason === reason));
  const values = (g: GatewayEntry): string[] => (g.addresses ?? []).map((a) => a.value);

  test('GatewayStaticAddresses', async () => {
    const invalid = { type: 'test/fake-invalid-type', value: 'fake address teehee!' };
    const unusable = { type: 'IPAddress', value: UNUSABLE };
    const usable = { type: 'IPAddress', value: USABLE };
    await c.apply([gateway('gateway-static-addresses', [invalid, unusable, usable])]);
    const refused = await gatewayMust('Accepted False UnsupportedAddress', 'gateway-static-addresses', (g) => has(g, 'Accepted', 'False', 'UnsupportedAddress'));
    assert.deepEqual(refused.addresses, [], 'a Gateway that is not accepted is bound to no address');

    await c.apply([gateway('gateway-static-addresses', [unusable, usable])]);
    await gatewayMust(
      'Accepted True, Programmed False AddressNotUsable',
      'gateway-static-addresses',
      (g) => has(g, 'Accepted', 'True', 'Accepted') && has(g, 'Programmed', 'False', 'AddressNotUsable'),
    );

    await c.apply([gateway('gateway-static-addresses', [usable])]);
    const g = await gatewayMust('Accepted and Programmed True', 'gateway-static-addresses', (x) => has(x, 'Accepted', 'True', 'Accepted') && has(x, 'Programmed', 'True', 'Programmed'));
    assert.deepEqual(
      g.listeners.map((l) => [l.name, l.attachedRoutes, l.supportedKinds.map((k) => k.kind), ['Accepted', 'ResolvedRefs'].every((t) => l.conditions.some((x) => x.type === t && x.status === 'True'))]),
      [['http', 0, ['HTTPRoute'], true]],
    );
    assert.deepEqual(g.addresses, [{ type: 'IPAddress', value: USABLE }], 'exactly the usable address, with its type');
    assert.ok(!values(g).includes(UNUSABLE) && !values(g).includes(invalid.value));
  });

  test('a claimed static address serves the Gateway, and another namespace cannot take it', async () => {
    const holder = gateway('holder', [{ type: 'IPAddress', value: USABLE }], { created: '2026-01-01T00:00:00Z' });
    // same namespace: shares what its namespace holds
    const sibling = gateway('sibling', [{ type: 'IPAddress', value: USABLE }], { created: '2026-02-01T00:00:00Z' });
    // another namespace, younger, asking for the held address and for a free one
    const intruder = gateway('intruder', [{ type: 'IPAddress', value: USABLE }], { namespace: WEB_NS, created: '2026-03-01T00:00:00Z' });
    const other = gateway('other', [{ type: 'IPAddress', value: '127.0.0.3' }], { namespace: WEB_NS, created: '2026-03-01T00:00:00Z' });
    const route = httpRoute('to-holder', { parentRefs: [{ name: 'holder', namespace: INFRA_NS }], hostnames: ['static.example.test'], rules: [{ backendRefs: [backend('infra-backend-v1')] }] });
    await c.apply([holder, sibling, intruder, other, route]);

    const held = await gatewayMust('Programmed with its static address', 'holder', (g) => has(g, 'Programmed', 'True') && values(g).join() === USABLE);
    assert.equal(held.listeners[0]?.attachedRoutes, 1);
    await gatewayMust('sharing the address its namespace holds', 'sibling', (g) => has(g, 'Programmed', 'True') && values(g).join() === USABLE);
    const refused = await gatewayMust('Programmed False AddressNotUsable', 'intruder', (g) => has(g, 'Accepted', 'True') && has(g, 'Programmed', 'False', 'AddressNotUsable'), WEB_NS);
    assert.deepEqual(refused.addresses, [], 'the held address is not written to the other namespace');
    assert.match(refused.conditions.find((x) => x.type === 'Programmed')?.message ?? '', /held by a Gateway of another namespace/);
    assert.doesNotMatch(refused.conditions.find((x) => x.type === 'Programmed')?.message ?? '', /holder/, "the holder's name is not told to another namespace");
    await gatewayMust('a free static address is its own', 'other', (g) => has(g, 'Programmed', 'True') && values(g).join() === '127.0.0.3', WEB_NS);

    // the listener is bound at the address the Gateway claimed
    await until('the route answers at the claimed address', async () => (await getAt(USABLE, local8080, 'static.example.test', '/')).pod.startsWith('infra-backend-v1'), WAIT_MS);

    // the holder lets go: the next oldest claimant of another namespace gets it
    await c.apply([intruder]);
    await gatewayMust('Programmed with the address let go', 'intruder', (g) => has(g, 'Programmed', 'True') && values(g).join() === USABLE, WEB_NS);
  });

  test('GatewayOptionalAddressValue', async () => {
    await c.apply([gateway('gateway-without-address-value', [{ type: 'IPAddress' }])]);
    const g = await gatewayMust('an address with a type in status', 'gateway-without-address-value', (x) => has(x, 'Accepted', 'True') && (x.addresses ?? []).some((a) => a.type !== undefined));
    assert.deepEqual(g.addresses, [{ type: 'IPAddress', value: '127.0.0.1' }], "Portico's own IPAddress");
    assert.ok(has(g, 'Programmed', 'True'));
  });
});
