// Renders the model's stream section: TCP/UDP services and the ssl_preread front of the HTTPS port (passthrough).
import type { Endpoint } from '../model/types.js';
import type { StreamModel } from '../model/stream.js';
import { cidr, filePath, int, logFormat, quote, serverName, snippet } from './escape.js';
import { accessLogParams } from './globals-http.js';
import { GLOBAL_DEFAULTS, type GlobalSettings } from '../model/settings.js';
import { statements, tokenize } from '../model/snippets/tokenize.js';
import { tlsFrontBlocks, tlsFrontMap, tlsPortServers } from './stream-tls.js';
import { gatewayStreamLines } from './stream-routes.js';
import { l4JsModuleLines, l4JsStreamLines, type L4JsOptions } from './stream-l4-js.js';

export interface StreamRenderOptions {
  readonly workDir: string;
  readonly httpsPort: number;
  readonly listenAddress: string;
  readonly global?: GlobalSettings;
  /** The access log file when the ConfigMap names none (default: stdout), as the http section's. */
  readonly defaultAccessLog?: string;
  /** nginx's stream njs module is installed: Gateway TCP/UDP peers come from tables, not nginx.conf (docs/adr/0041). */
  readonly l4Js?: L4JsOptions;
}

/** The unix socket (in the work directory) the HTTPS server listens on behind the passthrough front. */
const HTTPS_SOCKET = 'https.sock';
const socket = (o: StreamRenderOptions, name: string): string => `unix:${o.workDir.replace(/\/$/, '')}/${name}`;

export function streamModuleLines(stream: StreamModel | undefined, snippets: readonly string[] = [], js?: L4JsOptions): string[] {
  return stream || snippets.length > 0 ? [`load_module ${filePath('/usr/lib/nginx/modules/ngx_stream_module.so')};`, ...l4JsModuleLines(stream?.gateway, js)] : [];
}

/**
 * The stream snippets, in stream{} before Portico's servers: the ConfigMap's, then each distinct stream-snippet
 * annotation (a host's comes from its oldest Ingress). Each passed --snippet-mode in the stream context when read
 * (safe: stream-wide timeouts, buffers and access lists only, docs/adr/0012).
 */
export function streamSnippets(g: GlobalSettings | undefined, servers: readonly { readonly settings?: { readonly streamSnippet?: string } }[]): string[] {
  const own = servers.map((s) => s.settings?.streamSnippet).filter((t): t is string => t !== undefined);
  return [...new Set([...(g?.streamSnippet !== undefined ? [g.streamSnippet] : []), ...own])];
}

function where(address: string, port: number): string {
  return address === '' ? int(port) : address.includes(':') ? `[${cidr(address)}]:${int(port)}` : `${cidr(address)}:${int(port)}`;
}

/** The traffic addresses: the ConfigMap's bind-address list, else --listen-address (empty: every IPv4 address). */
export function trafficAddresses(o: { readonly listenAddress: string; readonly global?: GlobalSettings }): readonly string[] {
  const bind = o.global?.bindAddress ?? [];
  return bind.length > 0 ? bind.map(cidr) : [o.listenAddress];
}

/** One `listen` line per traffic address. */
function listens(o: StreamRenderOptions, port: number, tail: string): string[] {
  return trafficAddresses(o).map((a) => `        listen ${where(a, port)}${tail};`);
}

/**
 * A stream upstream's servers. nginx needs one server at least: a backend without ready endpoints gets a `down`
 * one, so connections are closed at once ("no live upstreams") and the port stays bound.
 */
function upstream(name: string, endpoints: readonly Endpoint[]): string[] {
  const servers =
    endpoints.length === 0 ? ['        server 127.0.0.1:1 down;'] : endpoints.map((e) => `        server ${e.address.includes(':') ? `[${cidr(e.address)}]` : cidr(e.address)}:${int(e.port)};`);
  return [`    upstream ${name} {`, ...servers, '    }'];
}

/**
 * Passthrough (docs/adr/0013): the stream server on the HTTPS port reads the SNI (ssl_preread) and passes the connection,
 * with a PROXY protocol line so the client's address survives, either to the HTTPS server on a unix socket
 * (terminated as without passthrough) or to a per-host socket that strips the line again before the backend:
 * a backend whose TLS Portico does not terminate must get the client's bytes unchanged.
 */
function passthrough(s: StreamModel, o: StreamRenderOptions): string[] {
  const hosts = s.passthrough ?? [];
  // use-proxy-protocol: a load balancer in front sends the line; the front trusts it from proxy-real-ip-cidr and passes the client on.
  const g = o.global;
  const fromLb = g?.useProxyProtocol === true;
  return [
    '    map $ssl_preread_server_name $portico_sni_target {',
    '        hostnames;',
    '        default portico_https;',
    ...hosts.map((h, i) => `        ${serverName(h.host)} portico_pt_${int(i)};`),
    ...tlsFrontMap(s),
    '    }',
    `    upstream portico_https { server ${quote(socket(o, HTTPS_SOCKET))}; }`,
    '    server {',
    ...listens(o, o.httpsPort, `${fromLb ? ' proxy_protocol' : ''} backlog=4096`),
    ...(fromLb ? g.proxyRealIpCidr.map((c) => `        set_real_ip_from ${cidr(c)};`) : []),
    '        ssl_preread on;',
    '        proxy_pass $portico_sni_target;',
    '        proxy_protocol on;',
    '        proxy_connect_timeout 5s;',
    '    }',
    ...hosts.flatMap((h, i) => [
      ...upstream(`portico_pt_backend_${int(i)}`, h.endpoints),
      `    upstream portico_pt_${int(i)} { server ${quote(socket(o, `pt-${int(i)}.sock`))}; }`,
      '    server {',
      `        listen ${quote(socket(o, `pt-${int(i)}.sock`))} proxy_protocol;`,
      `        proxy_pass portico_pt_backend_${int(i)};`,
      '    }',
    ]),
    ...tlsFrontBlocks(s, { workDir: o.workDir, listens: (port) => listens(o, port, '') }),
  ];
}

/** ingress-nginx's log_stream format (log-format-stream's default). */
const STREAM_FORMAT = '[$remote_addr] [$time_local] $protocol $status $bytes_sent $bytes_received $session_time';

/**
 * The stream section's access log, one line per TCP connection or UDP session: stream-access-log-path, else
 * access-log-path, else the http section's default file; off with disable-access-log or disable-stream-access-log.
 * enable-syslog sends the http section's log only (the stream one stays a file, as ingress-nginx's template).
 */
function streamAccessLog(o: StreamRenderOptions): string[] {
  const g = o.global ?? GLOBAL_DEFAULTS;
  if (g.disableAccessLog || g.disableStreamAccessLog) return ['    access_log off;'];
  const path = filePath(g.streamAccessLogPath ?? g.accessLogPath ?? o.defaultAccessLog ?? '/dev/stdout');
  return [`    log_format portico_stream ${logFormat(g.logFormatStream ?? STREAM_FORMAT)};`, `    access_log ${path} portico_stream ${accessLogParams(g)};`];
}

/** The whole `stream {}` block, or nothing when the model has no stream section. */
export function streamSection(s: StreamModel | undefined, o: StreamRenderOptions, snippets: readonly string[] = []): string[] {
  if (!s && snippets.length === 0) return [];
  // A snippet's own proxy_timeout or proxy_connect_timeout replaces the default (nginx refuses a directive twice).
  const top = new Set(snippets.flatMap((t) => statements(tokenize(t)).map((st) => st.name)));
  const own = (name: string): boolean => top.has(name);
  return [
    'stream {',
    // ingress-nginx's defaults: proxy-connect-timeout 5s, proxy-stream-timeout 600s, proxy-stream-responses 1.
    ...(own('proxy_connect_timeout') ? [] : ['    proxy_connect_timeout 5s;']),
    ...(own('proxy_timeout') ? [] : ['    proxy_timeout 600s;']),
    // an operator's stream snippet (--snippet-mode=any) with an access_log of its own keeps only its own
    ...(own('access_log') || own('log_format') ? [] : streamAccessLog(o)),
    ...snippets.flatMap((t) => snippet(t).map((l) => `    ${l}`)),
    ...(s?.services ?? []).flatMap((svc) => {
      const name = `portico_${svc.protocol}_${int(svc.port)}`;
      const udp = svc.protocol === 'udp';
      return [
        `    # ${svc.protocol.toUpperCase()} ${int(svc.port)}: ${svc.service.namespace}/${svc.service.name}:${int(svc.servicePort)}`,
        ...upstream(name, svc.endpoints),
        '    server {',
        ...listens(o, svc.port, `${udp ? ' udp' : ''}${svc.decodeProxy ? ' proxy_protocol' : ''}`),
        // A decoded PROXY line is trusted from proxy-real-ip-cidr, so the client's address is the one passed on.
        ...(svc.decodeProxy ? (o.global?.proxyRealIpCidr ?? ['0.0.0.0/0']).map((c) => `        set_real_ip_from ${cidr(c)};`) : []),
        `        proxy_pass ${name};`,
        ...(svc.encodeProxy ? ['        proxy_protocol on;'] : []),
        ...(udp ? ['        proxy_responses 1;'] : []),
        '    }',
      ];
    }),
    ...l4JsStreamLines(s?.gateway, o.l4Js),
    ...gatewayStreamLines(s?.gateway, (port, tail) => listens(o, port, tail), o.l4Js),
    ...(s?.passthrough ? passthrough(s, o) : []),
    ...(s ? tlsPortServers(s, { workDir: o.workDir, listens: (port) => listens(o, port, '') }) : []),
    '}',
  ];
}

/**
 * http-level lines with passthrough on: the HTTPS server behind the front trusts the PROXY line from its unix socket
 * only, so `$remote_addr` is the client's address for terminated hosts. With use-proxy-protocol the header is
 * already proxy_protocol; with use-forwarded-headers or enable-real-ip the header stays theirs (docs/adr/0013).
 */
export function passthroughHttpLines(s: StreamModel | undefined, g: GlobalSettings): string[] {
  if (s?.passthrough === undefined) return [];
  const header = g.useProxyProtocol || g.enableRealIp || g.useForwardedHeaders ? [] : ['    real_ip_header proxy_protocol;'];
  return [...header, '    set_real_ip_from unix:;'];
}

/** The HTTPS listen parameters with passthrough on: the unix socket, with the PROXY line the front sends. */
export function httpsListen(s: StreamModel | undefined, o: StreamRenderOptions): string | undefined {
  return s?.passthrough === undefined ? undefined : `listen ${quote(socket(o, HTTPS_SOCKET))}`;
}
