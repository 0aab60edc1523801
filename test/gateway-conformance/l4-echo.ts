// TCP and UDP echo backends on 127.0.0.1 answering as the conformance suite's TCPRoute and UDPRoute tests ask (their
// protocol, read in upstream's conformance/utils/tcp and udp; the texts here are this repository's own): a TCP backend
// greets each connection with a line, answers PING with PONG, IS_TLS with false and TEST with a JSON line naming its pod
// and namespace; a UDP backend answers each datagram with such a JSON object; a DNS one answers each query.
import { createServer, connect, type AddressInfo, type Server } from 'node:net';
import { createSocket, type Socket } from 'node:dgram';

const WELCOME = 'portico conformance tcp echo\n';

export interface L4Backend {
  readonly name: string;
  readonly namespace: string;
  readonly pod: string;
  readonly port: number;
  close(): Promise<void>;
}

/** A pod name as a Deployment's: `<backend>-<replicaset>-<pod>`, so the suite's extractBackendName gives the backend. */
const podOf = (name: string, n: number): string => `${name}-5c8d${n}-x${n}q`;
let pods = 0;

export async function tcpEcho(name: string, namespace: string): Promise<L4Backend> {
  const pod = podOf(name, ++pods);
  const server: Server = createServer((sock) => {
    sock.on('error', () => undefined);
    sock.write(WELCOME);
    let buf = '';
    sock.on('data', (c: Buffer) => {
      buf += c.toString('utf8');
      for (let nl = buf.indexOf('\n'), i = 0; nl >= 0 && i < 100; nl = buf.indexOf('\n'), i++) {
        const line = buf.slice(0, nl).trim();
        buf = buf.slice(nl + 1);
        if (line === 'PING') sock.write('PONG\n');
        else if (line === 'IS_TLS') sock.write('false\n');
        else if (line === 'TEST') sock.write(`${JSON.stringify({ pod, namespace })}\n`);
        else sock.write(`${line}\n`);
      }
      if (buf.length > 4096) sock.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    name,
    namespace,
    pod,
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise((r) => {
        server.close(() => {
          r();
        });
      }),
  };
}

/** A UDP echo (`dns`: a DNS server answering every query with an empty NOERROR answer of the same id and question). */
export async function udpEcho(name: string, namespace: string, dns = false): Promise<L4Backend> {
  const pod = podOf(name, ++pods);
  const sock: Socket = createSocket('udp4');
  sock.on('message', (msg, rinfo) => {
    const answer = dns ? dnsAnswer(msg) : Buffer.from(JSON.stringify({ pod, namespace, received: msg.toString('utf8').trim() }));
    if (answer) sock.send(answer, rinfo.port, rinfo.address);
  });
  await new Promise<void>((resolve) => sock.bind(0, '127.0.0.1', resolve));
  return {
    name,
    namespace,
    pod,
    port: sock.address().port,
    close: () =>
      new Promise((r) => {
        sock.close(() => {
          r();
        });
      }),
  };
}

/** The reply to a DNS query: its header with QR, RD, RA set and no answer, then its question. */
function dnsAnswer(q: Buffer): Buffer | undefined {
  if (q.length < 12) return undefined;
  const out = Buffer.from(q);
  out.writeUInt16BE(0x8180, 2);
  out.writeUInt16BE(0, 6);
  out.writeUInt16BE(0, 8);
  out.writeUInt16BE(0, 10);
  return out;
}

/** A DNS query for `name` type A with `id`. */
export function dnsQuery(id: number, name: string): Buffer {
  const labels = name
    .replace(/\.$/, '')
    .split('.')
    .flatMap((l) => [Buffer.from([l.length]), Buffer.from(l)]);
  const header = Buffer.alloc(12);
  header.writeUInt16BE(id, 0);
  header.writeUInt16BE(0x0100, 2);
  header.writeUInt16BE(1, 4);
  return Buffer.concat([header, ...labels, Buffer.from([0, 0, 1, 0, 1])]);
}

/** One datagram to 127.0.0.1:port from a fresh socket; the answer, or undefined after `ms`. */
export function udpOnce(port: number, payload: Buffer | string, ms = 1500): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const sock = createSocket('udp4');
    const timer = setTimeout(() => {
      sock.close();
      resolve(undefined);
    }, ms);
    sock.on('message', (msg) => {
      clearTimeout(timer);
      sock.close();
      resolve(msg);
    });
    sock.on('error', () => {
      clearTimeout(timer);
      sock.close();
      resolve(undefined);
    });
    sock.send(payload, port, '127.0.0.1');
  });
}

/**
 * The suite's TCP conversation on 127.0.0.1:port: the greeting, then PING, IS_TLS and TEST (`full`) or TEST alone;
 * the TEST answer, or why the conversation failed.
 */
export function tcpConversation(port: number, full: boolean, ms = 3000): Promise<{ pod: string; namespace: string } | string> {
  return new Promise((resolve) => {
    const sock = connect(port, '127.0.0.1');
    const asks = full ? ['PING', 'IS_TLS', 'TEST'] : ['TEST'];
    const wants = [WELCOME.trim(), ...(full ? ['PONG', 'false'] : [])];
    let buf = '';
    let step = 0;
    const done = (r: { pod: string; namespace: string } | string): void => {
      clearTimeout(timer);
      sock.destroy();
      resolve(r);
    };
    const timer = setTimeout(() => {
      done(`timeout after ${step} lines`);
    }, ms);
    sock.on('error', (err) => {
      done(String(err));
    });
    sock.on('close', () => {
      done(`closed after ${step} lines`);
    });
    sock.on('data', (c: Buffer) => {
      buf += c.toString('utf8');
      for (let nl = buf.indexOf('\n'); nl >= 0 && step < 4; nl = buf.indexOf('\n')) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (step < wants.length) {
          if (line !== wants[step]) {
            done(`line ${step}: ${JSON.stringify(line)}, want ${JSON.stringify(wants[step])}`);
            return;
          }
          sock.write(`${asks[step] ?? ''}\n`);
          step++;
          continue;
        }
        try {
          done(JSON.parse(line) as { pod: string; namespace: string });
          return;
        } catch {
          done(`TEST answered ${JSON.stringify(line)}`);
          return;
        }
      }
      return undefined;
    });
  });
}
