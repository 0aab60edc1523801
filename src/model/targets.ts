// Where tenant traffic may be sent: never Portico's own ports on loopback; loopback, link-local, unspecified,
// multicast or reserved addresses only where the operator allows them (docs/security.md, docs/adr/0007).

/** What the operator allows; built from --allow-loopback-upstreams, --allow-upstream-cidrs and Portico's ports. */
export interface TargetPolicy {
  /** Portico's own ports: a loopback target on one of them is refused whatever else allows it. */
  readonly ownPorts: readonly number[];
  /** Loopback on other ports (local mode, or Portico outside a pod). */
  readonly allowLoopback: boolean;
  /** CIDRs allowed although their class is refused (e.g. NodeLocal DNS 169.254.20.10/32); never loopback on own ports. */
  readonly allowCidrs: readonly string[];
}

/** No option given: everything refused, ingress-nginx's default ports (http, https, default server, webhook, status, healthz). */
export const DEFAULT_TARGET_POLICY: TargetPolicy = Object.freeze({ ownPorts: [80, 443, 8181, 8443, 10246, 10254], allowLoopback: false, allowCidrs: [] });

export type AddressClass = 'loopback' | 'link-local' | 'unspecified' | 'multicast' | 'reserved';

/** 16 bytes: an IPv6 address, or an IPv4 one mapped (::ffff:a.b.c.d). */
type Bytes = readonly number[];

/**
 * Dotted decimal as nginx reads it (ngx_inet_addr: four decimal parts of 1-3 ASCII digits, each at most 255, leading
 * zeros read as decimal). One pass over the characters: every endpoint address of the cluster is read here.
 */
function parseV4(s: string): number[] | undefined {
  const out: number[] = [];
  let value = 0;
  let digits = 0;
  for (let i = 0; i <= s.length; i++) {
    const c = i < s.length ? s.charCodeAt(i) : 46; // the end closes the last part as a '.' would
    if (c >= 48 && c <= 57) {
      value = value * 10 + (c - 48);
      digits += 1;
      if (digits > 3) return undefined;
    } else if (c === 46) {
      if (digits === 0 || value > 255 || out.length === 4) return undefined;
      out.push(value);
      value = 0;
      digits = 0;
    } else return undefined;
  }
  return out.length === 4 ? out : undefined;
}

function mapped(v4: readonly number[]): Bytes {
  return [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...v4];
}

function parseV6(s: string): Bytes | undefined {
  if (s.length > 45 || !/^[0-9a-fA-F:.]+$/.test(s)) return undefined;
  let text = s;
  let tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  if (text.includes('.')) {
    const v4 = parseV4(text.slice(lastColon + 1));
    if (!v4) return undefined;
    tail = v4;
    text = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groups = (h: string | undefined): number[] | undefined => {
    if (h === undefined || h === '') return [];
    const g = h.split(':');
    return g.every((x) => /^[0-9a-fA-F]{1,4}$/.test(x)) ? g.map((x) => parseInt(x, 16)) : undefined;
  };
  const head = groups(halves[0]);
  const rest = halves.length === 2 ? groups(halves[1]) : [];
  if (!head || !rest) return undefined;
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const all = [...head, ...Array<number>(halves.length === 2 ? missing : 0).fill(0), ...rest];
  const bytes = all.flatMap((g) => [g >> 8, g & 0xff]);
  if (tail.length === 4) bytes.splice(12, 4, ...tail);
  return bytes;
}

/** An IP literal (IPv4 dotted decimal, or IPv6 without brackets or zone) as 16 bytes; undefined otherwise. */
export function parseIp(s: string): Bytes | undefined {
  const v4 = parseV4(s);
  return v4 ? mapped(v4) : parseV6(s);
}

const zeros = (b: Bytes, from: number, to: number): boolean => b.slice(from, to).every((x) => x === 0);

/** The IPv4 address an IPv6 one carries and that the network may deliver to: mapped, translated, compatible, NAT64. */
function embeddedV4(b: Bytes): number[] | undefined {
  const last = [...b.slice(12)];
  if (zeros(b, 0, 10) && b[10] === 0xff && b[11] === 0xff) return last; // ::ffff:a.b.c.d
  if (zeros(b, 0, 8) && b[8] === 0xff && b[9] === 0xff && zeros(b, 10, 12)) return last; // ::ffff:0:a.b.c.d
  if (zeros(b, 0, 12)) return last; // ::a.b.c.d (deprecated compatible form)
  if (b[0] === 0 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zeros(b, 4, 12)) return last; // 64:ff9b::/96
  return undefined;
}

function classV4(a: readonly number[]): AddressClass | undefined {
  const [x = 0, y = 0] = a;
  if (x === 127) return 'loopback';
  if (x === 0) return 'unspecified';
  if (x === 169 && y === 254) return 'link-local';
  if (x >= 224 && x <= 239) return 'multicast';
  if (x >= 240) return 'reserved'; // 240.0.0.0/4 and the broadcast address
  return undefined;
}

/** The refused class of an address (bytes from parseIp), or undefined for an ordinary one. */
export function classify(b: Bytes): AddressClass | undefined {
  if (zeros(b, 0, 16)) return 'unspecified';
  if (zeros(b, 0, 15) && b[15] === 1) return 'loopback';
  if (b[0] === 0xfe && ((b[1] ?? 0) & 0xc0) === 0x80) return 'link-local';
  if (b[0] === 0xff) return 'multicast';
  const v4 = embeddedV4(b);
  return v4 ? classV4(v4) : undefined;
}

/** `a.b.c.d/n` or `v6/n` → [bytes, prefix length over 128 bits]; undefined when malformed. */
export function parseCidr(s: string): [Bytes, number] | undefined {
  const [ip = '', len, extra] = s.split('/');
  const b = parseIp(ip);
  if (!b || extra !== undefined) return undefined;
  const isV4 = parseV4(ip) !== undefined;
  const max = isV4 ? 32 : 128;
  const n = len === undefined ? max : /^\d{1,3}$/.test(len) ? Number(len) : NaN;
  if (!(n >= 0 && n <= max)) return undefined;
  return [b, isV4 ? n + 96 : n];
}

function inCidr(b: Bytes, [net, bits]: [Bytes, number]): boolean {
  for (let i = 0; i < 16; i++) {
    const take = Math.max(0, Math.min(8, bits - i * 8));
    const mask = take === 0 ? 0 : (0xff << (8 - take)) & 0xff;
    if (((b[i] ?? 0) & mask) !== ((net[i] ?? 0) & mask)) return false;
  }
  return true;
}

function allowedByCidr(b: Bytes, p: TargetPolicy): boolean {
  const v4 = embeddedV4(b);
  const forms = v4 ? [b, mapped(v4)] : [b];
  return p.allowCidrs.some((c) => {
    const cidr = parseCidr(c);
    return cidr !== undefined && forms.some((f) => inCidr(f, cidr));
  });
}

/** Why `address`:`port` may not be a target under `p`, or undefined when it may. */
export function refuseAddress(address: string, port: number, p: TargetPolicy = DEFAULT_TARGET_POLICY): string | undefined {
  // nearly every endpoint: an IPv4 address of no refused class (classV4), answered without its 16 bytes
  const v4 = parseV4(address);
  if (v4 !== undefined && classV4(v4) === undefined) return undefined;
  const b = v4 === undefined ? parseV6(address) : mapped(v4);
  if (!b) return `${JSON.stringify(address.slice(0, 64))} is not an IP address`;
  const kind = classify(b);
  if (kind === undefined) return undefined;
  if (kind === 'loopback' && p.ownPorts.includes(port)) {
    return `${address} port ${port} is loopback on one of Portico's own ports (the controller's endpoints); never allowed`;
  }
  if (allowedByCidr(b, p)) return undefined;
  if (kind === 'loopback' && p.allowLoopback) return undefined;
  const how = kind === 'loopback' ? '--allow-loopback-upstreams or --allow-upstream-cidrs' : '--allow-upstream-cidrs';
  return `${address} is a ${kind} address; targets may not be ${kind} unless the operator allows it (${how})`;
}

/** Host names nginx and glibc resolve to loopback without asking DNS (/etc/hosts, RFC 6761). */
const LOOPBACK_NAME = /^(localhost|localhost\.localdomain|localhost6|localhost6\.localdomain6|ip6-localhost|ip6-loopback)$|\.localhost$/;
const CANONICAL_V4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const NUMERIC_LABEL = /^(0x[0-9a-f]*|\d+)$/;

/** inet_aton(3) as glibc reads a host: 1 to 4 parts (decimal, 0x hex, 0 octal), the last one filling the rest. */
export function inetAton(host: string): number[] | undefined {
  const parts = host.split('.').map((x) => (/^0x/.test(x) ? parseInt(x.slice(2) || '0', 16) : /^0\d/.test(x) ? (/^[0-7]+$/.test(x) ? parseInt(x, 8) : NaN) : Number(x)));
  if (parts.length > 4 || parts.some((n) => !Number.isSafeInteger(n) || n < 0)) return undefined;
  const head = parts.slice(0, -1);
  const last = parts.at(-1) ?? 0;
  if (head.some((n) => n > 255) || last >= 2 ** (8 * (4 - head.length))) return undefined;
  const tail = Array.from({ length: 4 - head.length }, (_, i) => Math.floor(last / 2 ** (8 * (3 - head.length - i))) % 256);
  return [...head, ...tail];
}

/** Why the URL of a proxied target (mirror-target, auth-url) may not be used, or undefined when it may. */
export function refuseUrl(url: string, p: TargetPolicy = DEFAULT_TARGET_POLICY): string | undefined {
  const shown = JSON.stringify(url.slice(0, 80));
  const m = /^(https?):\/\/(\[[^\]]*\]|[^/?#:[\]$]*)(?::(\d{1,5}))?(?:[/?#$]|$)/i.exec(url);
  if (!m?.[1] || m[2] === undefined) return `${shown} has no host Portico can check`;
  const port = m[3] !== undefined ? Number(m[3]) : m[1].toLowerCase() === 'https' ? 443 : 80;
  const host = m[2].toLowerCase().replace(/\.$/, '');
  const why = (address: string, what: string): string | undefined => {
    const r = refuseAddress(address, port, p);
    return r === undefined ? undefined : `${shown}: ${what}: ${r}`;
  };
  if (host.startsWith('[')) return why(host.slice(1, -1), 'its host');
  if (host === '') return `${shown} has no host`;
  if (LOOPBACK_NAME.test(host)) return why('127.0.0.1', `${host} resolves to loopback`);
  if (!host.split('.').every((l) => NUMERIC_LABEL.test(l))) return undefined; // a DNS name: resolved per request, see ADR 0007
  if (CANONICAL_V4.test(host)) return why(host, 'its host');
  const read = inetAton(host);
  return `${shown}: ${host} is a numeric host that resolvers read as ${read ? read.join('.') : 'no address'}; write an IPv4 address as a.b.c.d`;
}
