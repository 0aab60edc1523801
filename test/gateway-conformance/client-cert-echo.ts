// The conformance suite's `tls-backend-with-client-cert-validation` echo, written again for local mode: an HTTPS echo
// on 127.0.0.1 that completes a handshake only with a client certificate its CA signed, and reports the certificate
// it got (fingerprint), so a test can tell which one nginx presented.
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { TLSSocket } from 'node:tls';
import type { Pem } from '../support/certs.js';
import type { EchoAnswer } from './echo.js';

/** An echo answer with the SHA-256 fingerprint of the client certificate the TLS connection presented. */
export interface ClientCertEchoAnswer extends EchoAnswer {
  readonly clientCert: string;
}

export interface ClientCertEcho {
  readonly port: number;
  /** TLS handshakes refused for want of a valid client certificate (bounded count). */
  readonly refused: () => number;
  close(): Promise<void>;
}

/** Starts the echo with certificate `cert`, accepting clients that `clientCa` signed; its pod is `<service>-pod-0`. */
export async function startClientCertEcho(service: string, namespace: string, cert: Pick<Pem, 'cert' | 'key'>, clientCa: Pick<Pem, 'cert'>): Promise<ClientCertEcho> {
  let refused = 0;
  const server: Server = createServer({ cert: cert.cert, key: cert.key, ca: clientCa.cert, requestCert: true, rejectUnauthorized: true }, (req, res) => {
    req.resume();
    req.on('end', () => {
      const headers: Record<string, string[]> = {};
      for (const [name, values] of Object.entries(req.headersDistinct)) if (name !== 'host' && values !== undefined) headers[name] = values;
      const socket = req.socket;
      const answer: ClientCertEchoAnswer = {
        path: req.url ?? '',
        host: req.headers.host ?? '',
        method: req.method ?? '',
        proto: `HTTP/${req.httpVersion}`,
        headers,
        namespace,
        pod: `${service}-pod-0`,
        clientCert: socket instanceof TLSSocket ? socket.getPeerCertificate().fingerprint256 : '',
      };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer));
    });
  });
  server.on('tlsClientError', () => {
    if (refused < 1_000_000) refused += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    refused: () => refused,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
