// Value parsers of the flags: each takes the flag's name and text, and returns the typed value or throws ConfigError naming the flag.
import { isIP } from 'node:net';
import { ConfigError } from '../errors.js';
import { RISK_ORDER, type RiskLevel } from '../model/settings.js';
import { parseCidr } from '../model/targets.js';

export type LoadBalance = 'round_robin' | 'ewma';

/** Splits `namespace/name`, the form every ingress-nginx object-reference flag takes. */
export function parseObjectRef(flag: string, value: string): { namespace: string; name: string } {
  const m = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)\/([a-z0-9]([-a-z0-9.]*[a-z0-9])?)$/.exec(value);
  if (!m?.[1] || !m[3]) {
    throw new ConfigError(`--${flag}: expected namespace/name, got ${JSON.stringify(value)}`);
  }
  return { namespace: m[1], name: m[3] };
}

/** A Gateway API controller name: a domain-prefixed path (`example.net/gateway-controller`), as the GatewayClass CRD requires. */
export function parseControllerName(flag: string, value: string): string {
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/[A-Za-z0-9/\-._~%!$&'()*+,;=:]+$/.test(value) || value.length > 253) {
    throw new ConfigError(`--${flag}: expected a domain-prefixed path such as portico.dev/gateway-controller, got ${JSON.stringify(value)}`);
  }
  return value;
}

/** Validates a TCP port flag. */
export function parsePort(flag: string, value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 65535) {
    throw new ConfigError(`--${flag}: expected a port number 1-65535, got ${JSON.stringify(value)}`);
  }
  return n;
}

/** Validates an integer flag with a lower bound. */
export function parseIntAtLeast(flag: string, value: string, min: number): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min) {
    throw new ConfigError(`--${flag}: expected an integer >= ${min}, got ${JSON.stringify(value)}`);
  }
  return n;
}

/** A Go duration of one unit (`30s`, `1500ms`, `2m`, `1h`) in milliseconds, at least `minMs`. */
export function parseDuration(flag: string, value: string, minMs: number): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(value);
  const scale = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;
  const ms = m?.[1] && m[2] ? Math.round(Number(m[1]) * scale[m[2] as keyof typeof scale]) : NaN;
  if (!(ms >= minMs)) throw new ConfigError(`--${flag}: expected a duration like 30s or 1500ms, at least ${minMs} ms, got ${JSON.stringify(value)}`);
  return ms;
}

/** ingress-nginx's whole seconds (`5`), or a duration (`5s`, `1500ms`); 0 allowed. */
export function parseSecondsOrDuration(flag: string, value: string): number {
  return /^\d+$/.test(value) ? Number(value) * 1000 : parseDuration(flag, value, 0);
}

/** `host:port` or `:port` (every address), as --validating-webhook takes it. */
export function parseListenAddress(flag: string, value: string): { host: string; port: number } {
  const m = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]*):(\d+)$/.exec(value);
  if (!m || m[2] === undefined) throw new ConfigError(`--${flag}: expected [host]:port, e.g. :8443, got ${JSON.stringify(value)}`);
  return { host: (m[1] ?? '').replace(/^\[|\]$/g, ''), port: parsePort(flag, m[2]) };
}

/** An IP address (v4, or v6 with or without brackets) or '' for every address (--healthz-host). */
export function parseHost(flag: string, value: string): string {
  const host = value.replace(/^\[(.*)\]$/, '$1');
  if (host !== '' && !isIP(host)) throw new ConfigError(`--${flag}: expected an IP address, e.g. 127.0.0.1, got ${JSON.stringify(value)}`);
  return host;
}

/** A user name as /etc/passwd holds it (--worker-user); nginx's `user` directive takes it. */
export function parseUserName(flag: string, value: string): string {
  if (!/^[a-z_][a-z0-9_-]{0,31}$/i.test(value)) throw new ConfigError(`--${flag}: expected a user name like www-data, got ${JSON.stringify(value)}`);
  return value;
}

/** Comma-separated IPs or DNS names (--publish-status-address). */
export function parseAddressList(flag: string, value: string): readonly string[] {
  const list = value
    .split(',')
    .map((a) => a.trim())
    .filter((a) => a !== '');
  const bad = list.find((a) => !/^[0-9a-fA-F:.]+$/.test(a) && !/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/i.test(a));
  if (bad !== undefined) throw new ConfigError(`--${flag}: ${JSON.stringify(bad)} is neither an IP address nor a DNS name`);
  return list;
}

/** Comma-separated metric names (--exclude-socket-metrics): letters, digits and underscores each. */
export function parseNameList(flag: string, value: string): readonly string[] {
  const list = value
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '');
  const bad = list.find((n) => !/^[A-Za-z_][A-Za-z0-9_]{0,199}$/.test(n));
  if (bad !== undefined) throw new ConfigError(`--${flag}: ${JSON.stringify(bad)} is not a metric name such as nginx_ingress_controller_request_size`);
  return list;
}

/** Comma-separated CIDRs (--allow-upstream-cidrs); a bare address is its own /32 or /128. */
export function parseCidrList(flag: string, value: string): readonly string[] {
  const list = value
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '');
  const bad = list.find((c) => parseCidr(c) === undefined);
  if (bad !== undefined) throw new ConfigError(`--${flag}: ${JSON.stringify(bad)} is not a CIDR such as 169.254.20.10/32 or fd00::/8`);
  return list;
}

/** An annotation risk level: Low, Medium, High or Critical, in any case. */
export function parseRiskLevel(flag: string, value: string): RiskLevel {
  const hit = RISK_ORDER.find((r) => r.toLowerCase() === value.toLowerCase());
  if (!hit) throw new ConfigError(`--${flag}: expected one of ${RISK_ORDER.join(', ')}, got ${JSON.stringify(value)}`);
  return hit;
}

/** A load-balancing algorithm Portico implements. */
export function parseLoadBalance(flag: string, value: string): LoadBalance {
  if (value !== 'round_robin' && value !== 'ewma') throw new ConfigError(`--${flag}: expected round_robin or ewma, got ${JSON.stringify(value)}`);
  return value;
}

/** A snippet mode: refuse, safe or any. */
export function parseSnippetMode(flag: string, value: string): 'refuse' | 'safe' | 'any' {
  if (value !== 'refuse' && value !== 'safe' && value !== 'any') throw new ConfigError(`--${flag}: expected refuse, safe or any, got ${JSON.stringify(value)}`);
  return value;
}

/** `PORT[,...]`: distinct port numbers, sorted (--gateway-h2c-ports). */
export function parsePortList(flag: string, value: string): readonly number[] {
  const ports = new Set<number>();
  for (const item of value.split(',').filter((s) => s.trim() !== '')) {
    const p = parsePort(flag, item.trim());
    if (ports.has(p)) throw new ConfigError(`--${flag}: port ${String(p)} is listed twice`);
    ports.add(p);
  }
  return [...ports].sort((a, b) => a - b);
}
