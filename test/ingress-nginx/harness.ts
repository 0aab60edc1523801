// One Portico (local mode, real nginx) per reproduced ingress-nginx e2e file, an echo backend, and the clients the
// upstream tests use (plain HTTP, HTTPS, raw bytes with a PROXY protocol line).
import { connect, type Socket } from 'node:net';
import tls from 'node:tls';
import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Backend, Echo } from '../support/backends.js';
import { ingress, type PathSpec } from '../support/objects.js';
import { backendObjects, configMap, manifestFolder, type ManifestDir } from '../support/manifests.js';
import { get, startPortico, until, type Reply, type Running } from '../support/portico.js';

const P = 'nginx.ingress.kubernetes.io';

/** Annotations with the ingress-nginx prefix: `ann({ 'app-root': '/foo' })`. */
export function ann(values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).map(([k, v]) => [`${P}/${k}`, v]));
}

export interface Suite {
  readonly portico: Running;
  readonly dir: ManifestDir;
  /** The echo backend behind Service `echo` (port 80). */
  readonly echo: Backend;
  /** Replaces the global ConfigMap `default/portico` and waits until a request shows it (`ready`). */
  config(data: Record<string, string>, ready?: () => Promise<boolean>): Promise<void>;
  /** Writes objects into their own manifest file (replacing it), then waits until `ready` holds. */
  put(file: string, objects: readonly unknown[], ready: () => Promise<boolean>): Promise<void>;
  /** A request through Portico's HTTP port. */
  get(host: string, path: string, opts?: Parameters<typeof get>[3]): Promise<Reply>;
  stop(): Promise<void>;
}

/** An Ingress of class portico with one rule: `host` (or none), `path` (Prefix) to Service `service` port 80. */
export function ing(
  name: string,
  host: string | undefined,
  opts: { annotations?: Record<string, string>; path?: string; type?: PathSpec['type']; service?: string; paths?: PathSpec[]; created?: string } = {},
) {
  const paths = opts.paths ?? [{ path: opts.path ?? '/', type: opts.type ?? 'Prefix', service: opts.service ?? 'echo' }];
  return ingress(name, {
    ...(host === undefined ? {} : { host }),
    className: 'portico',
    paths,
    ...(opts.annotations ? { annotations: opts.annotations } : {}),
    ...(opts.created ? { created: opts.created } : {}),
  });
}

/** What the echo backend received, from its JSON answer. */
export function echoed(r: Reply): Echo {
  return JSON.parse(r.body) as Echo;
}

/** Starts Portico on a manifest folder with the echo backend, the ConfigMap `config` and extra flags. */
export async function startSuite(opts: { config?: Record<string, string>; args?: string[]; objects?: readonly unknown[] } = {}): Promise<Suite> {
  const dir = await manifestFolder();
  const echo = await startEcho('echo');
  await dir.write('backend.json', [...backendObjects('echo', echo.port), ...(opts.objects ?? [])]);
  await dir.write('configmap.json', [configMap('portico', opts.config ?? {})]);
  let portico: Running;
  try {
    portico = await startPortico(['--manifests', dir.dir, '--configmap', 'default/portico', ...(opts.args ?? [])]);
  } catch (err) {
    // Portico refused to start (a flag or ConfigMap the test gives): stop what this suite started before saying so.
    await echo.close();
    await dir.remove();
    throw err;
  }
  const suite: Suite = {
    portico,
    dir,
    echo,
    config: async (data, ready) => {
      await dir.write('configmap.json', [configMap('portico', data)]);
      if (ready) await until('ConfigMap applied', async () => (await ready()) && (await ready()) && ready(), 20_000);
    },
    put: async (file, objects, ready) => {
      await dir.write(file, objects);
      try {
        // Three in a row: each nginx worker takes a pushed change on its own, so one answer may come from a worker ahead.
        await until(`${file} served`, async () => (await ready()) && (await ready()) && ready(), 20_000);
      } catch (err) {
        // Say why: Portico's warnings name the object and field it refused.
        throw new Error(
          `${String(err)}\n${portico.output
            .filter((l) => l.includes('"level":40') || l.includes('"level":50'))
            .slice(-8)
            .join('\n')}`,
        );
      }
    },
    get: (host, path, o) => get(portico.http, host, path, o),
    stop: async () => {
      await portico.stop();
      await echo.close();
      await dir.remove();
    },
  };
  return suite;
}

/** Sends raw bytes (a PROXY protocol line, then an HTTP request) and reads until the server closes, at most 10 s. */
export function rawExchange(port: number, bytes: string, tlsAfterProxy?: { servername: string; request: string }): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock: Socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      sock.destroy();
      reject(new Error('raw exchange: no close in 10 s'));
    }, 10_000);
    const finish = () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('utf8'));
    };
    sock.on('error', reject);
    sock.on('connect', () => {
      sock.write(bytes);
      if (tlsAfterProxy === undefined) {
        sock.on('data', (c: Buffer) => chunks.push(c));
        sock.on('end', finish);
        return;
      }
      const t = tls.connect({ socket: sock, servername: tlsAfterProxy.servername, rejectUnauthorized: false }, () => t.write(tlsAfterProxy.request));
      t.on('data', (c: Buffer) => chunks.push(c));
      t.on('end', finish);
      t.on('error', reject);
    });
  });
}

/** The JSON body of a raw HTTP/1.1 answer from the echo backend. */
export function rawEchoed(answer: string): Echo {
  // The body may come chunked: the JSON object is what lies between the first '{' and the last '}'.
  const body = answer.slice(answer.indexOf('\r\n\r\n') + 4);
  return JSON.parse(body.slice(body.indexOf('{'), body.lastIndexOf('}') + 1)) as Echo;
}

/**
 * An echo backend like test/support's (JSON of id, method, url, headers, body; header x-backend), answering as
 * ingress-nginx's test backends (httpbun) do on two paths: a path with `/status/NNN` answers status NNN, `/sleep/S` answers after S
 * seconds (at most 30), `/bytes/N` answers N bytes of application/octet-stream, `/html` a page of text/html; `?location=` and `?set-cookie=` become those headers.
 */
export async function startEcho(id: string): Promise<Backend> {
  const seen: Echo[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const echo: Echo = { id, method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      if (seen.length < 10_000) seen.push(echo);
      const status = /\/status\/([1-5]\d\d)\b/.exec(echo.url)?.[1];
      const sleep = /^\/sleep\/(\d{1,2})\b/.exec(echo.url)?.[1];
      const bytes = /^\/bytes\/(\d{1,5})$/.exec(echo.url)?.[1];
      const answer = () => {
        if (bytes !== undefined) {
          res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': Number(bytes), 'x-backend': id });
          res.end(Buffer.alloc(Number(bytes), 'a'));
        } else if (echo.url === '/html') {
          res.writeHead(200, { 'content-type': 'text/html', 'x-backend': id });
          res.end(`<html><body>${'<p>portico</p>'.repeat(100)}</body></html>`);
        } else {
          // ?location=… and ?set-cookie=… are answered as headers; x-http-version is the version nginx spoke.
          const q = new URL(echo.url, 'http://echo').searchParams;
          const extra = { ...(q.has('location') ? { location: q.get('location') ?? '' } : {}), ...(q.has('set-cookie') ? { 'set-cookie': q.get('set-cookie') ?? '' } : {}) };
          res.writeHead(status === undefined ? 200 : Number(status), { 'content-type': 'application/json', 'x-backend': id, 'x-http-version': req.httpVersion, ...extra });
          res.end(JSON.stringify(echo));
        }
      };
      if (sleep === undefined) answer();
      else setTimeout(answer, Math.min(Number(sleep), 30) * 1000);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    id,
    port: (server.address() as AddressInfo).port,
    server,
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

/** GETs each [host, path] in turn on one keep-alive connection: one worker logs them in order. */
export async function onOneConnection(port: number, reqs: readonly (readonly [string, string])[]): Promise<number[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const out: number[] = [];
  try {
    for (const [host, path] of reqs) {
      out.push(
        await new Promise<number>((resolve, reject) => {
          const req = request({ host: '127.0.0.1', port, path, headers: { host }, agent, timeout: 10_000 }, (res) => {
            res.resume();
            res.on('end', () => {
              resolve(res.statusCode ?? 0);
            });
          });
          req.on('timeout', () => req.destroy(new Error(`timeout: ${host}${path}`)));
          req.on('error', reject);
          req.end();
        }),
      );
    }
  } finally {
    agent.destroy();
  }
  return out;
}
