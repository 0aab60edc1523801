// The conformance suite's TLS backend (its `tls-backend` echo), written again for local mode: an HTTPS echo on
// 127.0.0.1 that answers as echo.ts does and adds the SNI name the client (nginx) sent, so a test can tell which
// validation.hostname reached the backend.
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Pem } from '../support/certs.js';
import type { EchoAnswer } from './echo.js';

/** An echo answer with the SNI name of the TLS connection ('' when the client sent none). */
export interface TlsEchoAnswer extends EchoAnswer {
  readonly sni: string;
}

export interface TlsEcho {
  readonly port: number;
  readonly pod: string;
  /** Answers given (bounded), newest last. */
  readonly seen: TlsEchoAnswer[];
  close(): Promise<void>;
}

const SEEN_MAX = 10_000;

/** Starts an HTTPS echo with certificate `cert` on a free port; its pod is `<service>-pod-0` in `namespace`. */
export async function startTlsEcho(service: string, namespace: string, cert: Pick<Pem, 'cert' | 'key'>): Promise<TlsEcho> {
  const pod = `${service}-pod-0`;
  const seen: TlsEchoAnswer[] = [];
  const server: Server = createServer({ cert: cert.cert, key: cert.key }, (req, res) => {
    req.resume();
    req.on('end', () => {
      const headers: Record<string, string[]> = {};
      for (const [name, values] of Object.entries(req.headersDistinct)) if (name !== 'host' && values !== undefined) headers[name] = values;
      // The request's socket is the TLS socket: its servername is the SNI name the client sent.
      const servername: unknown = (req.socket as { servername?: unknown }).servername;
      const answer: TlsEchoAnswer = {
        path: req.url ?? '',
        host: req.headers.host ?? '',
        method: req.method ?? '',
        proto: `HTTP/${req.httpVersion}`,
        headers,
        namespace,
        pod,
        sni: typeof servername === 'string' ? servername : '',
      };
      if (seen.length < SEEN_MAX) seen.push(answer);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    pod,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
