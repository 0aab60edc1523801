// Portico's own ports at start: each one free, or a clear error naming the port and its flag.
import { createServer } from 'node:net';
import type { Config } from '../config/config.js';
import { ErrorCodes, PorticoError } from '../errors.js';

/** A port Portico or its nginx listens on, where, and the flag that sets it. */
export interface PortUse {
  readonly flag: string;
  /** '' = every address, as the listener itself binds them (Node: dual stack; nginx `listen PORT`: IPv4). */
  readonly host: string;
  readonly port: number;
  /** Bound by nginx (`listen PORT` binds IPv4 only) rather than by Portico's own Node servers. */
  readonly nginx: boolean;
}

/** Pure: every listener of the configuration, in the order a user reads the flags. */
export function portUses(config: Config): PortUse[] {
  const uses: PortUse[] = [
    { flag: '--http-port', host: config.listenAddress, port: config.httpPort, nginx: true },
    { flag: '--https-port', host: config.listenAddress, port: config.httpsPort, nginx: true },
    { flag: '--healthz-port', host: config.healthzHost, port: config.healthzPort, nginx: false },
    { flag: '--status-port', host: '127.0.0.1', port: config.statusPort, nginx: true },
  ];
  if (config.defaultServerPort !== undefined) uses.push({ flag: '--default-server-port', host: '127.0.0.1', port: config.defaultServerPort, nginx: true });
  const hook = config.validatingWebhook;
  if (hook) uses.push({ flag: '--validating-webhook', host: hook.host, port: hook.port, nginx: false });
  return uses;
}

/** Pure: what a failed bind of `use` means and what to do, from the error code (EADDRINUSE, EACCES, ...). */
export function portMessage(use: PortUse, code: string, detail: string): string {
  const where = `${use.host === '' ? '*' : use.host.includes(':') ? `[${use.host}]` : use.host}:${use.port}`;
  switch (code) {
    case 'EADDRINUSE':
      return `port ${use.port} (${use.flag}) is already in use (${where}): stop the process that listens on it, or give ${use.flag} another port`;
    case 'EACCES':
      return `port ${use.port} (${use.flag}) may not be bound by this user (${where}: permission denied): ports below 1024 need root, CAP_NET_BIND_SERVICE or the sysctl net.ipv4.ip_unprivileged_port_start; or give ${use.flag} a port of 1024 or more`;
    case 'EADDRNOTAVAIL':
      return `port ${use.port} (${use.flag}): ${use.host} is not an address of this host (${where})`;
    default:
      return `port ${use.port} (${use.flag}) cannot be bound (${where}): ${detail}`;
  }
}

/** Binds and releases one port as its listener would; resolves with the error code, or undefined when it is free. */
async function tryBind(use: PortUse): Promise<{ code: string; detail: string } | undefined> {
  // nginx's `listen PORT` is IPv4 only and `listen [::]:PORT` sets ipv6only; Node's servers listen on both.
  const host = use.host !== '' ? use.host : use.nginx ? '0.0.0.0' : undefined;
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (err: NodeJS.ErrnoException) => {
      resolve({ code: err.code ?? 'unknown', detail: err.message });
    });
    server.listen({ port: use.port, host, ipv6Only: use.nginx && host?.includes(':') === true }, () => {
      server.close(() => {
        resolve(undefined);
      });
    });
  });
}

/** Throws PORTICO_PORT_UNAVAILABLE for the first port of the configuration that cannot be bound now. */
export async function checkPorts(config: Config): Promise<void> {
  for (const use of portUses(config)) {
    const failed = await tryBind(use);
    if (failed) throw new PorticoError(ErrorCodes.PORT_UNAVAILABLE, portMessage(use, failed.code, failed.detail));
  }
}

const ERRNO: Readonly<Record<string, string>> = { '98': 'EADDRINUSE', '13': 'EACCES', '99': 'EADDRNOTAVAIL' };

/**
 * nginx's own bind failure at its first start (`bind() to 0.0.0.0:8080 failed (98: Address already in use)`), said
 * as checkPorts says it when the port is one of Portico's flags; any other failure is returned as it is. A port
 * taken between the check and nginx's start, or a tcp-services port, ends here.
 */
export function explainStartFailure(config: Config, err: PorticoError): PorticoError {
  const m = /bind\(\) to (\S+):(\d+) failed \((\d+): ([^)]*)\)/.exec(err.message);
  if (!m) return err;
  const port = Number(m[2]);
  const use = portUses(config).find((u) => u.nginx && u.port === port) ?? { flag: 'a tcp/udp-services ConfigMap key', host: '', port, nginx: true };
  const text = portMessage({ ...use, host: (m[1] ?? '').replace(/^\[|\]$/g, '') }, ERRNO[m[3] ?? ''] ?? '', m[4] ?? '');
  return new PorticoError(ErrorCodes.PORT_UNAVAILABLE, `${text} (nginx: ${m[0]})`, { cause: err });
}
