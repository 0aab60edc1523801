// A FastCGI responder on 127.0.0.1 speaking just enough of the protocol (FastCGI 1.0) to answer: it reads one
// request's PARAMS and STDIN records and answers with them as JSON, so a test sees what nginx sent.
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';

const BEGIN_REQUEST = 1;
const END_REQUEST = 3;
const PARAMS = 4;
const STDIN = 5;
const STDOUT = 6;
/** Bytes one connection may buffer before the responder gives up on it. */
const MAX_BUFFER = 1 << 20;

export interface FcgiRequest {
  params: Record<string, string>;
  stdin: string;
}

export interface FcgiResponder {
  readonly port: number;
  /** Requests answered so far (at most 1,000 kept). */
  readonly seen: FcgiRequest[];
  close(): Promise<void>;
}

function record(type: number, id: number, content: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt8(1, 0);
  head.writeUInt8(type, 1);
  head.writeUInt16BE(id, 2);
  head.writeUInt16BE(content.length, 4);
  return Buffer.concat([head, content]);
}

/** Name-value pairs of a PARAMS stream: lengths of 1 byte, or 4 with the high bit set. */
function pairs(buf: Buffer): Record<string, string> {
  const out: Record<string, string> = {};
  let i = 0;
  const len = (): number => {
    const b = buf.readUInt8(i);
    if (b < 128) {
      i += 1;
      return b;
    }
    const n = buf.readUInt32BE(i) & 0x7fffffff;
    i += 4;
    return n;
  };
  while (i < buf.length) {
    const n = len();
    const v = len();
    const name = buf.subarray(i, i + n).toString('latin1');
    out[name] = buf.subarray(i + n, i + n + v).toString('latin1');
    i += n + v;
  }
  return out;
}

function serve(socket: Socket, seen: FcgiRequest[]): void {
  let buf = Buffer.alloc(0);
  let params = Buffer.alloc(0);
  let stdin = Buffer.alloc(0);
  let keep = false;
  socket.on('error', () => {
    socket.destroy();
  });
  socket.on('data', (chunk: Buffer) => {
    buf = Buffer.concat([buf, chunk]);
    if (buf.length > MAX_BUFFER) {
      socket.destroy();
      return;
    }
    while (buf.length >= 8) {
      const type = buf.readUInt8(1);
      const id = buf.readUInt16BE(2);
      const length = buf.readUInt16BE(4);
      const total = 8 + length + buf.readUInt8(6);
      if (buf.length < total) return;
      const content = buf.subarray(8, 8 + length);
      buf = buf.subarray(total);
      if (type === BEGIN_REQUEST) keep = (content.readUInt8(2) & 1) === 1;
      else if (type === PARAMS) params = Buffer.concat([params, content]);
      else if (type === STDIN && length > 0) stdin = Buffer.concat([stdin, content]);
      else if (type === STDIN) {
        const req: FcgiRequest = { params: pairs(params), stdin: stdin.toString('utf8') };
        if (seen.length < 1000) seen.push(req);
        const body = JSON.stringify(req);
        const reply = Buffer.from(`Status: 200 OK\r\nContent-Type: application/json\r\nX-Responder: fastcgi\r\n\r\n${body}`);
        const out: Buffer[] = [];
        for (let at = 0; at < reply.length; at += 65535) out.push(record(STDOUT, id, reply.subarray(at, at + 65535)));
        out.push(record(STDOUT, id, Buffer.alloc(0)), record(END_REQUEST, id, Buffer.alloc(8)));
        socket.write(Buffer.concat(out));
        params = Buffer.alloc(0);
        stdin = Buffer.alloc(0);
        if (!keep) socket.end();
      }
    }
  });
}

export async function startFcgiResponder(): Promise<FcgiResponder> {
  const seen: FcgiRequest[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    serve(s, seen);
  });
  await new Promise<void>((resolve) => {
    server.listen(0, '127.0.0.1', resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => {
          resolve();
        });
      }),
  };
}
