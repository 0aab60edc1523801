// Test support for the Lua data plane: starts a real nginx with a hand-written conf, real Node backends, and
// small HTTP helpers. Every process started here is stopped by its PID; every wait is bounded.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, chmodSync, writeFileSync, readFileSync, readdirSync, rmSync, existsSync } from 'node:fs';
import assert from 'node:assert/strict';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// dist/test/lua/harness.js -> repository root (three levels up from dist/test/lua).
const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..', '..', '..');
const NGINX = '/usr/sbin/nginx';

export { freePort } from '../support/portico.js';
import { freePort } from '../support/portico.js';
import { killGroup } from '../../src/nginx/launch.js';

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export interface Reply {
  status: number;
  body: string;
  headers: http.IncomingHttpHeaders;
}

export interface RequestOptions {
  method?: string;
  body?: string;
  headers?: Record<string, string>;
  host?: string;
  timeoutMs?: number;
}

/** One HTTP/1.1 request on a fresh connection (no agent), bounded by a timeout. */
export function request(port: number, urlPath: string, opts: RequestOptions = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: opts.host ?? '127.0.0.1', port, path: urlPath, method: opts.method ?? 'GET', agent: false, headers: opts.headers, timeout: opts.timeoutMs ?? 5000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), headers: res.headers });
      });
      res.on('error', reject);
    });
    req.on('timeout', () => {
      req.destroy(new Error(`request ${urlPath} timed out`));
    });
    req.on('error', reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

/** A Node backend on 127.0.0.1 (or ::1) that answers with its id (body, X-Backend, and a cookie of its own). */
export interface Backend {
  id: string;
  address: string;
  port: number;
  hits: number;
  close(): Promise<void>;
}

export async function startBackend(id: string, delayMs = 0, address = '127.0.0.1'): Promise<Backend> {
  const server = http.createServer((req, res) => {
    backend.hits += 1;
    req.resume();
    const answer = (): void => {
      res.writeHead(200, { 'content-type': 'text/plain', 'x-backend': id, 'set-cookie': `backend=${id}; Path=/` });
      res.end(id);
    };
    if (delayMs > 0) setTimeout(answer, delayMs);
    else answer();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, address, () => {
      resolve();
    });
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
  const backend: Backend = {
    id,
    address,
    port,
    hits: 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
  return backend;
}

export interface NginxOptions {
  workers?: number;
  /** Extra directives inside http {} (e.g. certificates server). */
  httpExtra?: string;
  /** Locations of the traffic server; default: `location /` proxied to backend "web". */
  locations?: string;
  /** PORTICO_CONFIG_TOKEN in nginx's environment (default: a random one; '' for none). */
  token?: string;
}

export interface Nginx {
  dir: string;
  port: number;
  statusPort: number;
  pid: number;
  /** The configuration endpoint's token; post() and get() send it (X-Portico-Token). */
  token: string;
  post(urlPath: string, body: unknown): Promise<Reply>;
  get(urlPath: string, opts?: RequestOptions): Promise<Reply>;
  workerPids(): number[];
  errorLog(): string;
  stop(): Promise<void>;
}

/**
 * A proxied location as the TypeScript renderer emits it (ADR 0001). `hooks`: also run portico.balancer's rewrite()
 * and log(), as rendered for algorithms that pick in the rewrite phase or learn from responses; without them (round
 * robin) the balancer is the only Lua the request runs.
 */
export function proxiedLocation(loc: string, backend: string, opts: { hooks?: boolean } = {}): string {
  const hooks = opts.hooks ?? true;
  return `
        location ${loc} {
            set $portico_backend "${backend}";${
              hooks
                ? `
            rewrite_by_lua_block { require("portico.balancer").rewrite() }
            log_by_lua_block { require("portico.balancer").log() }`
                : ''
            }
            proxy_pass http://portico_balancer;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_next_upstream error timeout;
            proxy_next_upstream_tries 3;
        }`;
}

function renderConf(dir: string, port: number, statusPort: number, opts: NginxOptions): string {
  const locations = opts.locations ?? proxiedLocation('/', 'web');
  return `load_module /usr/lib/nginx/modules/ndk_http_module.so;
load_module /usr/lib/nginx/modules/ngx_http_lua_module.so;
worker_processes ${opts.workers ?? 2};
env PORTICO_CONFIG_TOKEN;
error_log ${dir}/error.log info;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path ${dir}/client_body_temp;
    proxy_temp_path ${dir}/proxy_temp;
    fastcgi_temp_path ${dir}/fastcgi_temp;
    uwsgi_temp_path ${dir}/uwsgi_temp;
    scgi_temp_path ${dir}/scgi_temp;

    lua_package_path "${repoRoot}/lua/?.lua;;";
    lua_shared_dict portico_backends 512m;
    lua_shared_dict portico_certificates 128m;
    init_by_lua_block { require("portico.configuration").init() }
    init_worker_by_lua_block { require("portico.balancer").init_worker({ unavailable = "unix:${dir}/unavailable.sock" }) }

    upstream portico_balancer {
        server 0.0.0.1;
        balancer_by_lua_block { require("portico.balancer").balance() }
        keepalive 320; keepalive_time 1h; keepalive_timeout 60s; keepalive_requests 10000;
    }

    server {
        listen 127.0.0.1:${statusPort};
        location /configuration/ {
            client_max_body_size 512m; client_body_buffer_size 64m;
            content_by_lua_block { require("portico.configuration").call() }
        }
        location = /healthz { return 200; }
    }

    server {
        listen unix:${dir}/unavailable.sock;
        location / { return 503; }
    }

    server {
        listen 127.0.0.1:${port};
${locations}
    }
${opts.httpExtra ?? ''}
}
`;
}

/** Children of a PID, read from /proc (bounded by the number of processes). */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid ...; comm may contain spaces, so split after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(entry));
    } catch {
      /* the process went away while we read */
    }
  }
  return out.sort((a, b) => a - b);
}

function waitExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const t = setTimeout(() => {
      resolve(false);
    }, ms);
    child.once('exit', () => {
      clearTimeout(t);
      resolve(true);
    });
  });
}

/**
 * Starts nginx in a fresh mkdtemp directory. mkdtemp makes it 0700 and, started as root, nginx runs its workers
 * as `nobody`, which could then open nothing in it: we chmod it 0755 (nginx chowns its temp dirs itself).
 */
export async function startNginx(opts: NginxOptions = {}): Promise<Nginx> {
  const dir = mkdtempSync(path.join(tmpdir(), 'portico-lua-'));
  chmodSync(dir, 0o755);
  const port = await freePort();
  const statusPort = await freePort();
  const conf = path.join(dir, 'nginx.conf');
  const token = opts.token ?? randomBytes(32).toString('hex');
  writeFileSync(conf, renderConf(dir, port, statusPort, opts));
  const child = spawn(NGINX, ['-p', dir, '-c', conf, '-g', `daemon off; master_process on; pid ${dir}/nginx.pid;`], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { PORTICO_CONFIG_TOKEN: token },
    detached: true,
  });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const pid = child.pid ?? 0;
  const errorLog = (): string => {
    const file = path.join(dir, 'error.log');
    return existsSync(file) ? readFileSync(file, 'utf8') : '';
  };
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      process.kill(pid, 'SIGQUIT');
      if (!(await waitExit(child, 5000))) {
        // the master's whole group, as Portico does: a worker busy in Lua ignores the SIGQUIT and would outlive it
        killGroup(pid);
        await waitExit(child, 2000);
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const nginx: Nginx = {
    dir,
    port,
    statusPort,
    pid,
    token,
    errorLog,
    stop,
    post: (urlPath, body) => request(statusPort, urlPath, { method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'x-portico-token': token } }),
    get: (urlPath, o) => request(statusPort, urlPath, { ...o, headers: { 'x-portico-token': token, ...o?.headers } }),
    workerPids: () => childrenOf(pid),
  };
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) break;
    try {
      if ((await request(statusPort, '/healthz', { timeoutMs: 500 })).status === 200) return nginx;
    } catch {
      /* not listening yet */
    }
    await sleep(50);
  }
  const log = errorLog();
  await stop();
  throw new Error(`nginx did not start: ${stderr}\n${log}`);
}

/** A backend entry of the ADR 0001 JSON. */
export interface BackendJson {
  name: string;
  endpoints: { address: string; port: number }[];
  loadBalance?: string;
  hashBy?: string;
  hashSubset?: number;
  affinity?: Record<string, unknown> | null;
}

export function endpointsOf(...backends: Backend[]): { address: string; port: number }[] {
  return backends.map((b) => ({ address: b.address, port: b.port }));
}

/** Counts replies (by body) of `count` sequential requests. */
export async function tally(port: number, count: number, urlPath = '/', opts: RequestOptions = {}): Promise<Map<string, number>> {
  const seen = new Map<string, number>();
  for (let i = 0; i < count; i++) {
    const r = await request(port, urlPath, opts);
    const key = r.status === 200 ? r.body : `status ${r.status}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  return seen;
}

/** The backends of one test file, by id, and a POST of a backend list that must be accepted (201). */
export function backendPool(nginx: () => Nginx): { pool: Backend[]; byId: (id: string) => Backend; post: (list: BackendJson[]) => Promise<void> } {
  const pool: Backend[] = [];
  return {
    pool,
    byId: (id) => {
      const found = pool.find((x) => x.id === id);
      if (!found) throw new Error(`backend ${id} not started`);
      return found;
    },
    post: async (list) => {
      const res = await nginx().post('/configuration/backends', list);
      assert.equal(res.status, 201, res.body);
    },
  };
}
