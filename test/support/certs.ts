// Certificates made by the `openssl` CLI for tests, in a folder of the test's own (mkdtemp), and TLS clients.
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import http2 from 'node:http2';
import https from 'node:https';
import { join } from 'node:path';
import tls from 'node:tls';

export interface Pem {
  readonly cert: string;
  readonly key: string;
  readonly fingerprint: string;
}

let serial = 0;

function openssl(args: string[]): void {
  execFileSync('openssl', args, { stdio: 'ignore', timeout: 20_000 });
}

function read(base: string): Pem {
  const cert = readFileSync(`${base}.crt`, 'utf8');
  return { cert, key: readFileSync(`${base}.key`, 'utf8'), fingerprint: new X509Certificate(cert).fingerprint256 };
}

/** A P-256 certificate for `cn` with `sans` as DNS names: self-signed, or signed by `ca`. `days` of validity. */
export function makeCert(dir: string, cn: string, opts: { sans?: string[]; ca?: Pem; days?: number; isCa?: boolean } = {}): Pem {
  const base = join(dir, `c${++serial}`);
  const days = String(opts.days ?? 30);
  const ext = [
    ...(opts.sans?.length ? [`subjectAltName=${opts.sans.map((s) => `DNS:${s}`).join(',')}`] : []),
    opts.isCa ? 'basicConstraints=critical,CA:TRUE' : 'basicConstraints=critical,CA:FALSE',
    ...(opts.isCa ? ['keyUsage=critical,keyCertSign,cRLSign'] : []),
  ];
  const newKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', `${base}.key`, '-subj', `/CN=${cn}`];
  if (!opts.ca) {
    openssl(['req', '-x509', ...newKey, '-days', days, ...ext.flatMap((e) => ['-addext', e]), '-out', `${base}.crt`]);
    return read(base);
  }
  writeFileSync(`${base}.ca.crt`, opts.ca.cert);
  writeFileSync(`${base}.ca.key`, opts.ca.key, { mode: 0o600 });
  writeFileSync(`${base}.ext`, `${ext.join('\n')}\n`);
  openssl(['req', '-new', ...newKey, '-out', `${base}.csr`]);
  openssl([
    'x509',
    '-req',
    '-in',
    `${base}.csr`,
    '-CA',
    `${base}.ca.crt`,
    '-CAkey',
    `${base}.ca.key`,
    '-set_serial',
    String(1000 + serial),
    '-days',
    days,
    '-extfile',
    `${base}.ext`,
    '-out',
    `${base}.crt`,
  ]);
  return read(base);
}

/** The body lines of a PEM key (what a leak would contain, whatever the framing). */
export function keyLines(pem: string): string[] {
  return pem.split('\n').filter((l) => l.length >= 40 && !l.startsWith('-----'));
}

/** The certificate nginx presents for `servername` (sha256 fingerprint and subject CN). */
export function presented(port: number, servername: string): Promise<{ fingerprint: string; cn: string }> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, servername, rejectUnauthorized: false, timeout: 5000 }, () => {
      const peer = socket.getPeerCertificate();
      socket.destroy();
      resolve({ fingerprint: peer.fingerprint256, cn: String(peer.subject.CN) });
    });
    socket.on('timeout', () => {
      socket.destroy(new Error(`TLS handshake with ${servername} timed out`));
    });
    socket.on('error', reject);
  });
}

export interface TlsReply {
  status: number;
  headers: http2.IncomingHttpHeaders;
  body: string;
}

/** One HTTPS/1.1 request to 127.0.0.1 with SNI and Host `host`, optionally with a client certificate. */
export function httpsGet(port: number, host: string, path: string, client?: Pem): Promise<TlsReply> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      { host: '127.0.0.1', port, path, servername: host, headers: { host }, rejectUnauthorized: false, agent: false, timeout: 10_000, ...(client ? { cert: client.cert, key: client.key } : {}) },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') });
        });
      },
    );
    req.on('timeout', () => {
      req.destroy(new Error(`timeout: https://${host}${path}`));
    });
    req.on('error', reject);
    req.end();
  });
}

/** One HTTP/2 request (ALPN h2) with SNI `host`; resolves with the ALPN protocol and the status. */
export function h2Get(port: number, host: string, path: string): Promise<{ alpn: string | false; status: number }> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(`https://127.0.0.1:${port}`, { servername: host, rejectUnauthorized: false });
    const timer = setTimeout(() => {
      session.destroy(new Error('HTTP/2 request timed out'));
    }, 10_000);
    session.on('error', (err: Error) => {
      clearTimeout(timer);
      reject(err);
    });
    const req = session.request({ ':path': path, ':authority': host });
    req.on('response', (headers) => {
      const alpn = session.alpnProtocol ?? false;
      req.resume();
      req.on('end', () => {
        clearTimeout(timer);
        session.close();
        resolve({ alpn, status: Number(headers[':status']) });
      });
    });
    req.on('error', (err: Error) => {
      clearTimeout(timer);
      session.destroy();
      reject(err);
    });
    req.end();
  });
}
