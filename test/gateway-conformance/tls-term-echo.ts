// The conformance suite's tcp-backend for TLSRoute termination, in this repository's words: one line protocol on a
// plain port (what a Terminate listener passes on) and on a TLS port (what a Passthrough listener passes on): a
// greeting line, PING → PONG, IS_TLS → true/false, TEST → a JSON line with its pod, namespace and the SNI it saw.
// And the client: a TLS connection with SNI to Portico, verified against a CA, that walks the protocol.
import { createServer as plainServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { connect, createServer as tlsServer, type TLSSocket } from 'node:tls';
import type { Pem } from '../support/certs.js';

const WELCOME = 'portico tlsroute echo';

export interface LineEcho {
  readonly port: number;
  close(): Promise<void>;
}

/** What TEST answers. `sni`: the name the backend's own TLS saw ('' on the plain port). */
export interface EchoTest {
  readonly pod: string;
  readonly namespace: string;
  readonly sni: string;
}

function serve(sock: Socket, pod: string, namespace: string, tls: boolean, sni: string): void {
  sock.on('error', () => undefined);
  sock.write(`${WELCOME}\n`);
  let buf = '';
  sock.on('data', (c: Buffer) => {
    buf += c.toString('utf8');
    for (let nl = buf.indexOf('\n'), i = 0; nl >= 0 && i < 100; nl = buf.indexOf('\n'), i++) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      if (line === 'PING') sock.write('PONG\n');
      else if (line === 'IS_TLS') sock.write(`${String(tls)}\n`);
      else if (line === 'TEST') sock.write(`${JSON.stringify({ pod, namespace, sni })}\n`);
    }
    if (buf.length > 4096) sock.destroy();
  });
}

/** The backend of `name` in `namespace` on a free 127.0.0.1 port: plain, or TLS with `pem` when given. */
export async function lineEcho(name: string, namespace: string, pem?: Pem): Promise<LineEcho> {
  const pod = `${name}-7f9c-${pem ? 'tls' : 'tcp'}`;
  const server: Server = pem
    ? tlsServer({ cert: pem.cert, key: pem.key }, (s: TLSSocket) => {
        const sni = (s as { servername?: string | false }).servername;
        serve(s, pod, namespace, true, typeof sni === 'string' ? sni : '');
      }).on('tlsClientError', () => undefined)
    : plainServer((s) => {
        serve(s, pod, namespace, false, '');
      });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise((r) => {
        server.close(() => {
          r();
        });
      }),
  };
}

/** One walk through the protocol: the answers, the certificate's CN Portico (or the backend) showed, or why it stopped. */
export type Talk = { readonly isTls: string; readonly test: EchoTest; readonly cn: string } | { readonly failed: string };

/** Connects to 127.0.0.1:`port` with SNI `servername`, verified against `ca` for that name; bounded by `ms`. */
export function talk(port: number, servername: string, ca: string, ms = 5000): Promise<Talk> {
  return new Promise((resolve) => {
    const steps = ['PING', 'IS_TLS', 'TEST'];
    const got: string[] = [];
    let buf = '';
    let done = false;
    const s = connect({ host: '127.0.0.1', port, servername, ca });
    const finish = (t: Talk): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      s.destroy();
      resolve(t);
    };
    const timer = setTimeout(() => {
      finish({ failed: `no complete answer within ${ms} ms (${JSON.stringify(got)})` });
    }, ms);
    s.on('data', (c: Buffer) => {
      buf += c.toString('utf8');
      for (let nl = buf.indexOf('\n'); nl >= 0 && got.length < 4; nl = buf.indexOf('\n')) {
        got.push(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
        const next = steps[got.length - 1];
        if (next !== undefined) s.write(`${next}\n`);
      }
      if (got.length < 4) return;
      if (got[0] !== WELCOME || got[1] !== 'PONG') {
        finish({ failed: `unexpected answers ${JSON.stringify(got)}` });
        return;
      }
      try {
        const cert = s.getPeerCertificate();
        finish({ isTls: got[2] ?? '', test: JSON.parse(got[3] ?? '') as EchoTest, cn: typeof cert.subject?.CN === 'string' ? cert.subject.CN : '' });
      } catch {
        finish({ failed: `TEST answer is not JSON: ${(got[3] ?? '').slice(0, 80)}` });
      }
    });
    s.on('end', () => {
      finish({ failed: `closed after ${JSON.stringify(got)}` });
    });
    s.on('error', (err: Error) => {
      finish({ failed: err.message });
    });
  });
}
