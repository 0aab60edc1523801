// A TLS echo backend as the conformance suite's TLS backend behaves for passthrough: it terminates TLS itself with a
// certificate for the route's hostname and answers, on each connection, where it runs and the SNI it was sent. And
// the client: a TLS connection with SNI, reading that answer (or saying the connection was closed without one).
import { connect, createServer, type Server } from 'node:tls';
import type { AddressInfo } from 'node:net';
import type { Pem } from '../support/certs.js';

/** What the TLS echo answers: one JSON line. */
export interface TlsEchoAnswer {
  readonly namespace: string;
  readonly pod: string;
  /** The SNI the backend saw: passthrough keeps the client's. */
  readonly sni: string;
}

export interface TlsEchoBackend {
  readonly service: string;
  readonly namespace: string;
  readonly port: number;
  close(): Promise<void>;
}

/** Starts the TLS echo of Service `service` in `namespace` with `pem` on a free 127.0.0.1 port. */
export async function startTlsEcho(service: string, namespace: string, pem: Pem, podSuffix = 'pod-0'): Promise<TlsEchoBackend> {
  const pod = `${service}-${podSuffix}`;
  const server: Server = createServer({ cert: pem.cert, key: pem.key }, (sock) => {
    sock.on('error', () => undefined);
    const sni = (sock as { servername?: string | false }).servername;
    sock.end(`${JSON.stringify({ namespace, pod, sni: typeof sni === 'string' ? sni : '' })}\n`);
  });
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    service,
    namespace,
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise((r) => {
        server.close(() => {
          r();
        });
      }),
  };
}

/** A TLS connection's outcome: the echo's answer and the certificate's CN, or why there is none. */
export type TlsOutcome = { readonly answer: TlsEchoAnswer; readonly cn: string } | { readonly closed: string };

/**
 * Connects to 127.0.0.1:`port` with SNI `servername`, verifying against `ca` when given (the hostname checked as the
 * suite checks it), and reads one answer. A connection closed before the handshake ends, or without an answer, is
 * `closed` with the reason; bounded by `ms`.
 */
export function tlsAsk(port: number, servername: string, ca?: string, ms = 5000): Promise<TlsOutcome> {
  return new Promise((resolve) => {
    let data = '';
    let done = false;
    const finish = (o: TlsOutcome): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      s.destroy();
      resolve(o);
    };
    const s = connect({ host: '127.0.0.1', port, servername, ...(ca !== undefined ? { ca } : { rejectUnauthorized: false }) });
    const timer = setTimeout(() => {
      finish({ closed: `no answer within ${ms} ms` });
    }, ms);
    s.on('data', (c: Buffer) => {
      data += c.toString('utf8');
      if (data.length > 4096) finish({ closed: 'answer too long' });
    });
    s.on('end', () => {
      try {
        const answer = JSON.parse(data.trim()) as TlsEchoAnswer;
        const cert = s.getPeerCertificate();
        finish({ answer, cn: typeof cert.subject?.CN === 'string' ? cert.subject.CN : '' });
      } catch {
        finish({ closed: data === '' ? 'closed without an answer' : `not an echo answer: ${data.slice(0, 80)}` });
      }
    });
    s.on('error', (err: Error) => {
      finish({ closed: err.message });
    });
  });
}

/** The pod that answered, or `closed: why`: what tests compare. */
export async function tlsWho(port: number, servername: string, ca?: string): Promise<string> {
  const o = await tlsAsk(port, servername, ca);
  return 'answer' in o ? o.answer.pod : `closed: ${o.closed}`;
}
