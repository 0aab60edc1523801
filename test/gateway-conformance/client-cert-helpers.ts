// Manifests and the TLS round trip of the client-certificate tests (client-cert-frontend.test.ts, test/e2e/gateway-client-cert.test.ts).
import { request } from 'node:https';
import { TLSSocket } from 'node:tls';
import type { Pem } from '../support/certs.js';
import { INFRA_NS as NS } from './base.js';
import type { EchoAnswer } from './echo.js';
import type { Captured } from './expect.js';

const G = 'gateway.networking.k8s.io';

export type Validation = { readonly caCertificateRefs: readonly Record<string, string>[]; readonly mode?: string };
export const caRef = (name: string, more: Record<string, string> = {}): Record<string, string> => ({ kind: 'ConfigMap', group: '', name, ...more });

/** A Gateway with these listeners (HTTPS ones with the infra certificate Secret) and spec.tls.frontend. */
export function clientGateway(
  name: string,
  listeners: readonly { name: string; port: number; protocol?: string; hostname?: string }[],
  frontend: { default: Validation; perPort?: readonly { port: number; validation: Validation }[] },
  namespace = NS,
  secret = 'tls-validity-checks-certificate',
): unknown {
  return {
    apiVersion: `${G}/v1`,
    kind: 'Gateway',
    metadata: { name, namespace },
    spec: {
      gatewayClassName: 'portico-conformance',
      tls: { frontend: { default: { validation: frontend.default }, ...(frontend.perPort ? { perPort: frontend.perPort.map((p) => ({ port: p.port, tls: { validation: p.validation } })) } : {}) } },
      listeners: listeners.map((l) => ({
        name: l.name,
        port: l.port,
        protocol: l.protocol ?? 'HTTPS',
        ...(l.hostname === undefined ? {} : { hostname: l.hostname }),
        allowedRoutes: { namespaces: { from: 'Same' } },
        ...((l.protocol ?? 'HTTPS') === 'HTTPS' ? { tls: { certificateRefs: [{ group: '', kind: 'Secret', name: secret, namespace }] } } : {}),
      })),
    },
  };
}

export function configMap(name: string, data: Record<string, string>, namespace = NS): unknown {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data };
}

/**
 * One HTTPS request as the suite's TLS round trip makes it: SNI `sni`, Host `host`, the client certificate when given,
 * and only the listener Secret's certificate trusted (`serverFingerprint`): another certificate fails the request.
 */
export function tlsRoundTrip(port: number, sni: string, host: string, serverFingerprint: string, client?: Pem): Promise<Captured> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/', servername: sni, headers: { host }, rejectUnauthorized: false, agent: false, timeout: 10_000, ...(client ? { cert: client.cert, key: client.key } : {}) },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          let echo: EchoAnswer | undefined;
          try {
            echo = JSON.parse(Buffer.concat(chunks).toString('utf8')) as EchoAnswer;
          } catch {
            echo = undefined;
          }
          const headers: Record<string, string[]> = {};
          for (const [k, v] of Object.entries(res.headersDistinct)) if (v !== undefined) headers[k] = v;
          resolve({ status: res.statusCode ?? 0, headers, echo });
        });
      },
    );
    req.on('socket', (s) => {
      s.once('secureConnect', () => {
        if (s instanceof TLSSocket && s.getPeerCertificate().fingerprint256 !== serverFingerprint) req.destroy(new Error(`${sni}: the server certificate is not the listener's`));
      });
    });
    req.on('timeout', () => req.destroy(new Error(`timeout: https://${host}/`)));
    req.on('error', reject);
    req.end();
  });
}
