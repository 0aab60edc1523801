// Real TCP and UDP backends on 127.0.0.1 for the stream tests: each answers with its id (and what it was sent first).
import { createServer, connect, type Server } from 'node:net';
import { createSocket, type Socket } from 'node:dgram';
import type { AddressInfo } from 'node:net';

export interface StreamBackend {
  readonly id: string;
  readonly port: number;
  /** First line each TCP connection sent (a PROXY protocol line when nginx sends one). */
  readonly firstLines: string[];
  close(): Promise<void>;
}

/**
 * A TCP backend: with `proxy`, it reads the first line (the PROXY protocol header) and answers `id <line>`;
 * without, it answers `id` at once and echoes what follows.
 */
export async function tcpBackend(id: string, proxy = false): Promise<StreamBackend> {
  const firstLines: string[] = [];
  const server: Server = createServer((sock) => {
    sock.on('error', () => undefined);
    if (!proxy) {
      sock.write(`${id}\n`);
      sock.pipe(sock);
      return;
    }
    let buf = '';
    sock.on('data', (c: Buffer) => {
      buf += c.toString('latin1');
      const nl = buf.indexOf('\r\n');
      if (nl < 0 || buf.length > 200) return;
      const line = buf.slice(0, nl);
      firstLines.push(line);
      sock.end(`${id} ${line}\n`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    id,
    port: (server.address() as AddressInfo).port,
    firstLines,
    close: () =>
      new Promise((r) => {
        server.close(() => {
          r();
        });
      }),
  };
}

/** A UDP backend answering every datagram with `id:<datagram>`. */
export async function udpBackend(id: string): Promise<StreamBackend> {
  const sock: Socket = createSocket('udp4');
  sock.on('message', (msg, rinfo) => {
    sock.send(`${id}:${msg.toString('utf8')}`, rinfo.port, rinfo.address);
  });
  await new Promise<void>((resolve) => sock.bind(0, '127.0.0.1', resolve));
  return {
    id,
    port: sock.address().port,
    firstLines: [],
    close: () =>
      new Promise((r) => {
        sock.close(() => {
          r();
        });
      }),
  };
}

/** Connects to 127.0.0.1:port, sends `send` (if any), returns everything read until the peer closes or `ms` pass. */
export function tcpAsk(port: number, send = '', ms = 2000): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = connect(port, '127.0.0.1');
    let data = '';
    const timer = setTimeout(() => {
      sock.destroy();
      resolve(data);
    }, ms);
    sock.on('connect', () => {
      if (send) sock.write(send);
    });
    sock.on('data', (c: Buffer) => {
      data += c.toString('utf8');
      if (!send && data.includes('\n')) {
        clearTimeout(timer);
        sock.destroy();
        resolve(data);
      }
    });
    sock.on('end', () => {
      clearTimeout(timer);
      resolve(data);
    });
    sock.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

/** The first line a TCP backend answered on `port` ('' when the connection was closed without an answer). */
export async function tcpWho(port: number): Promise<string> {
  return (await tcpAsk(port)).split('\n')[0] ?? '';
}

/** One datagram to 127.0.0.1:port from a fresh socket (a new nginx session); the answer, or '' after `ms`. */
export function udpAsk(port: number, text: string, ms = 1500): Promise<string> {
  return new Promise((resolve) => {
    const sock = createSocket('udp4');
    const timer = setTimeout(() => {
      sock.close();
      resolve('');
    }, ms);
    sock.on('message', (msg) => {
      clearTimeout(timer);
      sock.close();
      resolve(msg.toString('utf8'));
    });
    sock.on('error', () => {
      clearTimeout(timer);
      sock.close();
      resolve('');
    });
    sock.send(text, port, '127.0.0.1');
  });
}
