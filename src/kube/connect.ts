// Where the API is and how to reach it: kubeconfig or in-cluster credentials, --apiserver-host, and a start-up probe.
import { existsSync } from 'node:fs';
import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { KubeConfig, type Cluster } from '@kubernetes/client-node';
import { ConfigError, ErrorCodes, PorticoError, errorMessage } from '../errors.js';

const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

export interface Connection {
  readonly kc: KubeConfig;
  /** The API server's address. */
  readonly server: string;
  /** Where the credentials came from, for messages. */
  readonly from: string;
}

/** What the connection needs from the frozen Config. */
export interface ConnectOptions {
  readonly kubeconfig: string | undefined;
  readonly apiserverHost: string | undefined;
}

/** Builds the KubeConfig: the file if given, else the pod's service account; --apiserver-host replaces the server. */
export function loadConnection(opts: ConnectOptions): Connection {
  const kc = new KubeConfig();
  let from: string;
  if (opts.kubeconfig) {
    try {
      kc.loadFromFile(opts.kubeconfig);
    } catch (err) {
      throw new ConfigError(`--kubeconfig ${opts.kubeconfig}: cannot read it: ${errorMessage(err)}`);
    }
    from = `kubeconfig ${opts.kubeconfig}`;
  } else if (existsSync(SERVICE_ACCOUNT_TOKEN)) {
    kc.loadFromCluster();
    from = 'in-cluster service account';
  } else if (opts.apiserverHost) {
    kc.loadFromClusterAndUser({ name: 'apiserver-host', server: opts.apiserverHost, skipTLSVerify: false }, { name: 'anonymous' });
    from = '--apiserver-host without credentials';
  } else {
    throw new ConfigError('no Kubernetes API to watch: give --kubeconfig FILE (or set KUBECONFIG), run in a pod, ' + 'or use --manifests DIR for local mode');
  }
  const withHost = opts.apiserverHost ? overrideServer(kc, opts.apiserverHost) : kc;
  const server = withHost.getCurrentCluster()?.server;
  if (!server) throw new ConfigError(`${from}: the current context names no cluster server`);
  return { kc: withHost, server, from };
}

/** A copy of kc whose current cluster is at `host`; plain http:// (kubectl proxy) has no TLS to verify. */
function overrideServer(kc: KubeConfig, host: string): KubeConfig {
  const current = kc.getCurrentCluster();
  if (!/^https?:\/\/[^/]/.test(host)) throw new ConfigError(`--apiserver-host: expected http(s)://host[:port], got ${JSON.stringify(host)}`);
  const server = host.replace(/\/+$/, '');
  const replace = (c: Cluster): Cluster => (c.name === current?.name ? { ...c, server, skipTLSVerify: c.skipTLSVerify || server.startsWith('http://') } : c);
  const out = new KubeConfig();
  out.loadFromOptions({ clusters: kc.clusters.map(replace), users: kc.users, contexts: kc.contexts, currentContext: kc.currentContext });
  return out;
}

/** GET /version with the connection's credentials; resolves with the server's gitVersion or throws API_UNREACHABLE. */
export async function probe(conn: Connection, timeoutMs = 10_000): Promise<string> {
  const url = new URL(`${conn.server.replace(/\/+$/, '')}/version`);
  const fail = (cause: string, err?: unknown): PorticoError =>
    new PorticoError(ErrorCodes.API_UNREACHABLE, `cannot reach the Kubernetes API at ${conn.server} (${conn.from}): ${cause}`, { cause: err });
  const opts: RequestOptions = { headers: { accept: 'application/json', connection: 'close' } };
  try {
    await conn.kc.applyToHTTPSOptions(opts);
  } catch (err) {
    throw fail(errorMessage(err), err);
  }
  const send = url.protocol === 'http:' ? httpRequest : httpsRequest;
  const reply = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = send(url, { ...opts, method: 'GET', timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => {
        if (chunks.length < 64) chunks.push(c);
      });
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
      });
      res.on('error', reject);
    });
    req.on('timeout', () => {
      req.destroy(new Error(`no answer within ${timeoutMs} ms`));
    });
    req.on('error', reject);
    req.end();
  }).catch((err: unknown) => {
    throw fail(errorMessage(err), err);
  });
  if (reply.status === 401 || reply.status === 403) throw fail(`HTTP ${reply.status}: the API refused the credentials`);
  if (reply.status !== 200) throw fail(`HTTP ${reply.status} on GET /version: ${reply.body.slice(0, 200)}`);
  try {
    const v = (JSON.parse(reply.body) as { gitVersion?: unknown }).gitVersion;
    return typeof v === 'string' ? v : 'unknown';
  } catch {
    throw fail('GET /version did not answer JSON: is this a Kubernetes API server?');
  }
}
