// Renders the global ConfigMap settings at http level, and the request/response header sets locations repeat.
import type { GlobalSettings, ResolvedHeaders } from '../model/settings.js';
import { cidr, headerName, ident, int, onOff, quote, quoteLiteral, seconds, size, word } from './escape.js';
import { httpCompat, proxyDefaults } from './globals-http.js';

const duration = (v: string): string => {
  if (!/^\d{1,6}(ms|s|m|h|d)?$/.test(v)) throw new Error(`refusing to render the time ${JSON.stringify(v)}`);
  return v;
};

export interface HeaderOverrides {
  readonly host?: string;
  readonly prefix?: string;
  readonly connection?: string;
  readonly extra?: readonly (readonly [string, string])[];
  /** [header, variable name] pairs of Portico's own (auth response headers): rendered as `$name`. */
  readonly vars?: readonly (readonly [string, string])[];
  /** X-Original-URI even when proxy-add-original-uri-header is off (custom error pages, as ingress-nginx sends it there). */
  readonly originalUri?: boolean;
  /** A server with client-certificate auth (render/tls.ts clientCertHeaders): the ssl-client-* headers, `pass` with the certificate. */
  readonly clientCert?: 'verify' | 'pass';
}

/**
 * The proxy_set_header list. nginx inherits http-level proxy_set_header only into locations that set none, so a
 * location that sets one of its own gets the whole list again from here, with its overrides.
 */
export function proxyHeaders(g: GlobalSettings, h: ResolvedHeaders, o: HeaderOverrides = {}, indent = '    '): string[] {
  const fwd = g.useForwardedHeaders;
  const pairs: [string, string][] = [
    ['Host', o.host !== undefined ? quote(o.host) : '$best_http_host'],
    ['Upgrade', '$http_upgrade'],
    ['Connection', o.connection !== undefined ? quote(o.connection) : '$connection_upgrade'],
    ['X-Request-ID', '$req_id'],
    ['X-Real-IP', '$remote_addr'],
    ['X-Forwarded-For', g.computeFullForwardedFor ? '$proxy_add_x_forwarded_for' : '$remote_addr'],
    ['X-Forwarded-Host', fwd ? '$portico_fwd_host' : '$best_http_host'],
    ['X-Forwarded-Port', fwd ? '$portico_fwd_port' : serverPort(g)],
    ['X-Forwarded-Proto', schemeVar(g)],
    ['X-Forwarded-Scheme', schemeVar(g)],
    ['X-Scheme', schemeVar(g)],
    // The client's own, passed on under another name whatever use-forwarded-headers says (as ingress-nginx does).
    ['X-Original-Forwarded-For', `$http_${headerName(g.forwardedForHeader).toLowerCase().replace(/-/g, '_')}`],
    ['X-Original-Forwarded-Host', `$http_${headerName(g.forwardedHostHeader).toLowerCase().replace(/-/g, '_')}`],
    ['Proxy', '""'],
  ];
  if (g.proxyAddOriginalUriHeader || o.originalUri === true) pairs.push(['X-Original-URI', '$request_uri']);
  if (o.prefix !== undefined) pairs.push(['X-Forwarded-Prefix', quote(o.prefix)]);
  for (const [name, value] of [...h.proxySet, ...(o.extra ?? [])]) pairs.push([headerName(name), quote(value)]);
  for (const [name, v] of o.vars ?? []) pairs.push([headerName(name), `$${ident(v)}`]);
  // The ssl-client-* headers carry values only where the server checks client certificates; elsewhere they are set
  // empty, which nginx turns into "drop the client's header of that name" at load time: no work per request.
  const cert = o.clientCert;
  pairs.push(
    ['ssl-client-verify', cert ? '$ssl_client_verify' : '""'],
    ['ssl-client-subject-dn', cert ? '$ssl_client_s_dn' : '""'],
    ['ssl-client-issuer-dn', cert ? '$ssl_client_i_dn' : '""'],
    ['ssl-client-cert', cert === 'pass' ? '$ssl_client_escaped_cert' : '""'],
  );
  return pairs.map(([name, value]) => `${indent}proxy_set_header ${name} ${value};`);
}

/**
 * Response headers Portico adds (the ConfigMap's add-headers, custom-headers): more_set_headers from headers-more, on
 * every status. Unlike add_header, a block that sets its own inherits these too (headers-more merges the levels), so
 * a location's CORS, custom-headers or a snippet's add_header never removes them (docs/adr/0003, amendment).
 */
export function setHeaders(headers: readonly (readonly [string, string])[], indent: string): string[] {
  return headers.map(([name, value]) => `${indent}more_set_headers ${quote(`${headerName(name)}: ${value}`)};`);
}

/** The port the client connected to: with use-proxy-protocol, the one the PROXY protocol line names. */
function serverPort(g: GlobalSettings): string {
  return g.useProxyProtocol ? '$proxy_protocol_server_port' : '$server_port';
}

/** The scheme passed on: a PROXY protocol line naming port 443 means the client spoke HTTPS to the load balancer. */
function schemeVar(g: GlobalSettings): string {
  if (g.useProxyProtocol) return '$portico_pp_proto';
  return g.useForwardedHeaders ? '$portico_fwd_proto' : '$scheme';
}

/**
 * The host of the HTTP to HTTPS redirect (render/tls.ts, lua/portico/router.lua), without a port: the request's, or
 * under use-forwarded-headers the first X-Forwarded-Host, as ingress-nginx redirects. A forwarded value that is not a
 * host name or bracketed IPv6 address (with an optional port) falls back to the request's host.
 */
function redirectHostMap(g: GlobalSettings): string {
  const name = '"~^(?<portico_redirect_name>[A-Za-z0-9._-]+|\\[[0-9A-Fa-f:.]+\\])(:[0-9]+)?$" $portico_redirect_name;';
  return `    map ${g.useForwardedHeaders ? '$portico_fwd_host' : '$host'} $portico_redirect_host { default $host; ${name} }`;
}

function forwardedMaps(g: GlobalSettings): string[] {
  const pp = g.useProxyProtocol ? [`    map $proxy_protocol_server_port $portico_pp_proto { default ${g.useForwardedHeaders ? '$portico_fwd_proto' : '$scheme'}; 443 https; }`] : [];
  if (!g.useForwardedHeaders) return [redirectHostMap(g), ...pp];
  return [
    redirectHostMap(g),
    "    map $http_x_forwarded_proto $portico_fwd_proto { default $http_x_forwarded_proto; '' $scheme; }",
    `    map $http_x_forwarded_port $portico_fwd_port { default $http_x_forwarded_port; '' ${serverPort(g)}; }`,
    // A list of hosts: the first one, as ingress-nginx takes it.
    "    map $http_x_forwarded_host $portico_fwd_host { default $http_x_forwarded_host; '' $best_http_host; '~^(?<portico_xfh_first>[^,]*),' $portico_xfh_first; }",
    ...pp,
  ];
}

/**
 * use-proxy-protocol with use-forwarded-headers, as ingress-nginx does it: a PROXY protocol address inside
 * proxy-real-ip-cidr is another proxy, so its forwarded-for-header is believed; any other is the client itself. realip
 * cannot choose its header per request, so nginx first writes the choice into forwarded-for-proxy-protocol-header.
 */
function realIpProxyForwarded(g: GlobalSettings): string[] {
  const header = headerName(g.forwardedForProxyProtocolHeader);
  const forwarded = `$http_${headerName(g.forwardedForHeader).toLowerCase().replace(/-/g, '_')}`;
  return [
    '    geo $proxy_protocol_addr $portico_proxy_protocol_trusted {',
    '        default 0;',
    ...g.proxyRealIpCidr.map((c) => `        ${cidr(c)} 1;`),
    '    }',
    `    map $portico_proxy_protocol_trusted $portico_forwarded_for_proxy_protocol { default $proxy_protocol_addr; 1 ${forwarded}; }`,
    `    more_set_input_headers "${header}: $portico_forwarded_for_proxy_protocol";`,
    `    real_ip_header ${header};`,
    '    real_ip_recursive on;',
    ...g.proxyRealIpCidr.map((c) => `    set_real_ip_from ${cidr(c)};`),
  ];
}

function realIp(g: GlobalSettings): string[] {
  if (g.useProxyProtocol && g.useForwardedHeaders) return realIpProxyForwarded(g);
  if (g.useProxyProtocol) return ['    real_ip_header proxy_protocol;', ...g.proxyRealIpCidr.map((c) => `    set_real_ip_from ${cidr(c)};`)];
  if (!g.enableRealIp && !g.useForwardedHeaders) return [];
  return [`    real_ip_header ${headerName(g.forwardedForHeader)};`, '    real_ip_recursive on;', ...g.proxyRealIpCidr.map((c) => `    set_real_ip_from ${cidr(c)};`)];
}

function blocks(g: GlobalSettings): string[] {
  const lines = g.blockCidrs.map((c) => `    deny ${cidr(c)};`);
  if (g.blockUserAgents.length > 0) {
    lines.push('    map $http_user_agent $portico_block_ua {', '        default 0;');
    for (const ua of g.blockUserAgents) lines.push(`        ${ua.startsWith('~') ? quoteLiteral(ua) : quote(ua)} 1;`);
    lines.push('    }');
  }
  return lines;
}

/** http-level directives from the ConfigMap (defaults of every location). */
export function httpGlobals(g: GlobalSettings, h: ResolvedHeaders): string[] {
  return [
    // Without server tokens no Server header at all, as ingress-nginx answers (not even "nginx").
    `    server_tokens ${onOff(g.serverTokens)};${g.serverTokens ? '' : ' more_clear_headers Server;'}`,
    `    keepalive_timeout ${seconds(g.keepAlive)}; keepalive_requests ${int(g.keepAliveRequests)};`,
    `    client_max_body_size ${size(g.proxyBodySize)}; client_body_buffer_size ${size(g.clientBodyBufferSize)};`,
    `    proxy_http_version ${word(g.proxyHttpVersion, ['1.0', '1.1'])};`,
    `    proxy_connect_timeout ${seconds(g.proxyConnectTimeout)}; proxy_send_timeout ${seconds(g.proxySendTimeout)}; proxy_read_timeout ${seconds(g.proxyReadTimeout)};`,
    ...proxyDefaults(g),
    ...httpCompat(g),
    ...forwardedMaps(g),
    ...realIp(g),
    ...blocks(g),
    ...proxyHeaders(g, h),
    ...setHeaders(h.add, '    '),
  ];
}

/** The upstream block's keepalive line (after balancer_by_lua: see NGINX-NOTES.md). */
export function upstreamKeepalive(g: GlobalSettings): string {
  const n = g.upstreamKeepaliveConnections;
  if (n === 0) return '';
  return `        keepalive ${int(n)}; keepalive_time ${duration(g.upstreamKeepaliveTime)}; keepalive_timeout ${seconds(g.upstreamKeepaliveTimeout)}; keepalive_requests ${int(g.upstreamKeepaliveRequests)};`;
}
