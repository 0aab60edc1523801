// Gateway API conformance (v1.6.1), reproduced through real nginx: HTTPRouteBackendProtocolH2C. A request with HTTP/2
// prior knowledge reaches a backend whose Service port has appProtocol kubernetes.io/h2c; Portico passes it with
// grpc_pass, which speaks HTTP/2 cleartext to the backend (docs/adr/0029). The Gateway's port 80 takes h2c only on a
// port the operator declares, so Portico runs with --gateway-h2c-ports naming --http-port; the backend is an h2c echo
// (h2c-echo.ts). Named with the upstream ShortName; the manifests are this repository's own.
import { after, before, describe, test } from 'node:test';
import { connect, constants } from 'node:http2';
import { until } from '../support/portico.js';
import { httpRoute, mustBeAccepted, startConformance, type Conformance } from './harness.js';
import { INFRA_NS as NS } from './base.js';
import type { EchoAnswer } from './echo.js';
import { startH2cEcho, type H2cEcho } from './h2c-echo.js';

/** One GET of `path` over HTTP/2 with prior knowledge: the status and the echo's answer, or the error as `status` 0. */
async function h2cGet(port: number, path: string): Promise<{ status: number; echo?: EchoAnswer; error?: string }> {
  const session = connect(`http://127.0.0.1:${String(port)}`);
  try {
    return await new Promise((resolve) => {
      session.on('error', (err: Error) => {
        resolve({ status: 0, error: err.message });
      });
      const req = session.request({ [constants.HTTP2_HEADER_PATH]: path, [constants.HTTP2_HEADER_AUTHORITY]: '127.0.0.1' });
      req.setTimeout(10_000, () => {
        req.close();
      });
      req.on('error', (err: Error) => {
        resolve({ status: 0, error: err.message });
      });
      req.on('response', (headers) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const status = Number(headers[constants.HTTP2_HEADER_STATUS]);
          try {
            resolve({ status, echo: JSON.parse(Buffer.concat(chunks).toString('utf8')) as EchoAnswer });
          } catch {
            resolve({ status });
          }
        });
      });
      // a stream closed without an end (the timeout): the first resolve wins
      req.on('close', () => {
        resolve({ status: 0, error: 'closed without an answer' });
      });
      req.end();
    });
  } finally {
    session.close();
  }
}

describe('GATEWAY-HTTP conformance: an h2c backend', () => {
  let c: Conformance;
  let h2c: H2cEcho;
  before(async () => {
    h2c = await startH2cEcho('infra-backend-v1', NS);
    try {
      c = await startConformance([], { portArgs: ({ http }) => ['--gateway-h2c-ports', String(http)], h2cPort: h2c.port });
    } catch (err) {
      await h2c.close();
      throw err;
    }
  });
  after(async () => {
    await c?.stop();
    await h2c?.close();
  });

  test('HTTPRouteBackendProtocolH2C', async () => {
    await c.apply([httpRoute('backend-protocol-h2c', { rules: [{ backendRefs: [{ name: 'infra-backend-v1', port: 8081 }] }] })]);
    await mustBeAccepted(c, 'same-namespace', [[NS, 'backend-protocol-h2c']]);
    // MakeRequestAndExpectEventuallyConsistentResponse: 200 from infra-backend-v1 of the infra namespace, 3 times in a row.
    let inARow = 0;
    let last = '';
    await until(
      'an h2c request to reach infra-backend-v1 over h2c 3 times in a row',
      async () => {
        const r = await h2cGet(c.portico.http, '/');
        last = JSON.stringify(r);
        const ok = r.status === 200 && r.echo?.namespace === NS && r.echo.pod.startsWith('infra-backend-v1-') && r.echo.proto === 'HTTP/2.0';
        inARow = ok ? inARow + 1 : 0;
        return inARow >= 3;
      },
      30_000,
      250,
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}: ${last}`);
    });
  });
});
