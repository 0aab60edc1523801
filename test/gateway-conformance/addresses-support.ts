// Helpers of the spec.addresses tests (addresses.test.ts, test/e2e/gateway-static-addresses.test.ts): a Gateway with
// addresses, a request to a given local address, and waiting on a Gateway's status in /debug/gateway.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { until } from '../support/portico.js';
import type { Conformance } from './harness.js';
import { INFRA_NS } from './base.js';
import type { GatewayDoc } from '../../src/inspect/gateway.js';

const WAIT_MS = 30_000;

type Address = { type?: string; value?: string };
type GatewayEntry = GatewayDoc['gateways'][number];

/** A Gateway with one HTTP listener on 8080 (routes from every namespace) and these spec.addresses. */
export function addressedGateway(name: string, addresses: readonly Address[], more: { namespace?: string; created?: string } = {}): unknown {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'Gateway',
    metadata: { name, namespace: more.namespace ?? INFRA_NS, ...(more.created ? { creationTimestamp: more.created } : {}) },
    spec: { gatewayClassName: 'portico-conformance', addresses, listeners: [{ name: 'http', port: 8080, protocol: 'HTTP', allowedRoutes: { namespaces: { from: 'All' } } }] },
  };
}

/** One GET to `address`:`port` with Host `host`: the status and the echo's pod name ('' when none answered). */
export function getAt(address: string, port: number, host: string, path: string): Promise<{ status: number; pod: string }> {
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

/** Waits until Gateway `namespace/name` meets `ok` in /debug/gateway; the failure shows what it last was. */
export async function gatewayMust(c: Conformance, what: string, name: string, ok: (g: GatewayEntry) => boolean, namespace = INFRA_NS): Promise<GatewayEntry> {
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
}

/** The Gateway has condition `type` with `status` (and `reason`, when given). */
export const has = (g: GatewayEntry, type: string, status: string, reason?: string): boolean =>
  g.conditions.some((x) => x.type === type && x.status === status && (reason === undefined || x.reason === reason));

/** The values of the Gateway's status.addresses. */
export const values = (g: GatewayEntry): string[] => (g.addresses ?? []).map((a) => a.value);
