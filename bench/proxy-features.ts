// bench/proxy's hand-written nginx.conf built feature by feature: the `twin` side (a hand-written nginx with the
// headers, access log and Lua balancer Portico installs by default, written the way a person would write them) and
// the variants bench/proxy-attribute.ts measures, each the twin with one feature removed, changed or added.
// Pure text, like bench/hand-conf.ts.

export interface Features {
  /** `default`: the headers ingress-nginx sends to every backend by default; `minimal`: Host and Connection only. */
  readonly headers: 'default' | 'minimal';
  /** `$best_http_host`, `$connection_upgrade` and `$req_id` through maps (ingress-nginx's); else plain variables. */
  readonly maps: boolean;
  /** X-Request-ID to the backend and `$req_id` in the log (a fresh `$request_id` unless the client sent one). */
  readonly requestId: boolean;
  /**
   * The four ssl-client-* headers: `none`; `empty`: set to "" (Portico now, on servers without client auth: the client's
   * headers of those names are dropped); `maps`: Portico's http-level maps on `set $portico_client_auth ""` (before);
   * `direct`: `$ssl_client_*` as a client-auth server sends them.
   */
  readonly clientCert: 'none' | 'empty' | 'maps' | 'direct';
  /** The access log: Portico's format, `buffered` (buffer=64k flush=1s, Portico's default) or `unbuffered` (ingress-nginx's default, one write per request). */
  readonly log: 'off' | 'buffered' | 'unbuffered';
  /** enable-real-ip: real_ip_header X-Forwarded-For from any address (the realip module's work per request). */
  readonly realIp: boolean;
  /** `lua`: the smallest useful balancer_by_lua (round robin in an upvalue, set_current_peer); `static`: servers in the upstream. */
  readonly balancer: 'static' | 'lua';
  /** `set $portico_metrics "<labels>"` in the location as well as `set $portico_backend`. */
  readonly metricsLabel: boolean;
  /** The id from lua/portico/request_id.lua (a server-level set_by_lua, RAND_bytes drawn 4 KiB at a time) instead of $request_id, as Portico renders it. */
  readonly luaRequestId?: boolean;
  /** How the set_by_lua chunk reaches the module: `require` (a C function call per request) or `loaded` (the table
   * package.loaded already holds, require() only on a worker's first request), as Portico renders it now. */
  readonly luaChunk?: 'require' | 'loaded';
}

/** The hand-written twin of Portico as installed, without per-request metrics (a hand-written nginx has none). */
export const TWIN: Features = { headers: 'default', maps: true, requestId: true, clientCert: 'none', log: 'buffered', realIp: false, balancer: 'lua', metricsLabel: false };

/** bench/proxy's `minimal` side in these terms: static upstream, two headers, the same access log. */
export const MINIMAL: Features = { ...TWIN, headers: 'minimal', maps: false, balancer: 'static' };

const LUA_MODULES = `load_module /usr/lib/nginx/modules/ndk_http_module.so;
load_module /usr/lib/nginx/modules/ngx_http_lua_module.so;
`;

function logLines(f: Features, dir: string): string[] {
  const id = f.requestId ? (f.maps ? '$req_id' : '$request_id') : '-';
  const format = [
    '    log_format portico \'$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent \'',
    '                       \'"$http_referer" "$http_user_agent" $request_length $request_time \'',
    `                       '[$portico_backend] $upstream_addr $upstream_status $upstream_response_time ${id}';`,
  ];
  if (f.log === 'off') return ['    access_log off;'];
  return [...format, `    access_log ${dir}/logs/access.log portico${f.log === 'buffered' ? ' buffer=64k flush=1s' : ''};`];
}

function headerLines(f: Features): string[] {
  const lines: string[] = [];
  if (f.maps) {
    lines.push("    map $http_upgrade $connection_upgrade { default upgrade; '' ''; }");
    if (f.requestId && f.luaRequestId === true) {
      lines.push(
        '    map $host $portico_request_id { default $request_id; }',
        "    map $http_x_request_id $req_id { default $http_x_request_id; '' $portico_request_id; }",
        '    init_worker_by_lua_block { require("portico.request_id").init_worker() }',
      );
    } else if (f.requestId) lines.push("    map $http_x_request_id $req_id { default $http_x_request_id; '' $request_id; }");
    lines.push("    map $http_host $best_http_host { default $http_host; '' $host; }");
  }
  const host = f.maps ? '$best_http_host' : '$host';
  const set = (name: string, value: string): void => {
    lines.push(`    proxy_set_header ${name} ${value};`);
  };
  if (f.headers === 'minimal') {
    set('Host', host);
    set('Connection', '""');
  } else {
    set('Host', host);
    set('Upgrade', '$http_upgrade');
    set('Connection', f.maps ? '$connection_upgrade' : '""');
    if (f.requestId) set('X-Request-ID', f.maps ? '$req_id' : '$request_id');
    set('X-Real-IP', '$remote_addr');
    set('X-Forwarded-For', '$remote_addr');
    set('X-Forwarded-Host', host);
    set('X-Forwarded-Port', '$server_port');
    set('X-Forwarded-Proto', '$scheme');
    set('X-Forwarded-Scheme', '$scheme');
    set('X-Scheme', '$scheme');
    set('Proxy', '""');
  }
  if (f.clientCert === 'maps') {
    lines.push(
      '    map $portico_client_auth $portico_ssl_client_verify { "" ""; default $ssl_client_verify; }',
      '    map $portico_client_auth $portico_ssl_client_s_dn { "" ""; default $ssl_client_s_dn; }',
      '    map $portico_client_auth $portico_ssl_client_i_dn { "" ""; default $ssl_client_i_dn; }',
      '    map $portico_client_auth $portico_ssl_client_cert { pass $ssl_client_escaped_cert; default ""; }',
    );
  }
  if (f.clientCert !== 'none') {
    const v = (mapped: string, direct: string): string => (f.clientCert === 'maps' ? mapped : f.clientCert === 'empty' ? '""' : direct);
    set('ssl-client-verify', v('$portico_ssl_client_verify', '$ssl_client_verify'));
    set('ssl-client-subject-dn', v('$portico_ssl_client_s_dn', '$ssl_client_s_dn'));
    set('ssl-client-issuer-dn', v('$portico_ssl_client_i_dn', '$ssl_client_i_dn'));
    set('ssl-client-cert', v('$portico_ssl_client_cert', '$ssl_client_escaped_cert'));
  }
  return lines;
}

function upstreamLines(f: Features, backends: readonly number[]): string[] {
  if (f.balancer === 'static') return ['    upstream static_backend {', ...backends.map((p) => `        server 127.0.0.1:${p};`)];
  return [
    '    init_by_lua_block {',
    '        local set_current_peer = require("ngx.balancer").set_current_peer',
    `        local ports, i = { ${backends.join(', ')} }, 0`,
    '        package.loaded.floor = { balance = function() i = i % #ports + 1; set_current_peer("127.0.0.1", ports[i]) end }',
    '    }',
    '    upstream static_backend {',
    '        server 0.0.0.1;',
    '        balancer_by_lua_block { require("floor").balance() }',
  ];
}

export interface FeatureConf {
  readonly port: number;
  readonly backends: readonly number[];
  readonly workers: number;
  readonly host: string;
  readonly features: Features;
  /** Portico's lua/ folder (for luaRequestId). */
  readonly luaDir?: string;
}

/** The nginx.conf of one variant (same events, keepalive, timeouts and buffers as Portico's defaults). */
export function featureConf(o: FeatureConf): (dir: string) => string {
  const f = o.features;
  return (dir) =>
    [
      `${f.balancer === 'lua' || f.luaRequestId === true ? LUA_MODULES : ''}worker_processes ${o.workers};`,
      `pid ${dir}/nginx.pid;`,
      'events { worker_connections 16384; multi_accept on; }',
      'http {',
      `    client_body_temp_path ${dir}/tmp;`,
      `    proxy_temp_path ${dir}/tmp;`,
      ...(f.luaRequestId === true ? [`    lua_package_path "${o.luaDir ?? 'lua'}/?.lua;;";`] : []),
      ...logLines(f, dir),
      '    server_tokens off;',
      '    sendfile on; tcp_nopush on; tcp_nodelay on;',
      '    keepalive_timeout 75s; keepalive_requests 1000;',
      '    proxy_http_version 1.1;',
      '    proxy_connect_timeout 5s; proxy_send_timeout 60s; proxy_read_timeout 60s;',
      '    proxy_buffering off; proxy_request_buffering on; proxy_buffer_size 4k; proxy_buffers 4 4k;',
      '    proxy_next_upstream error timeout; proxy_next_upstream_tries 3;',
      '    proxy_redirect off;',
      ...(f.realIp ? ['    real_ip_header X-Forwarded-For;', '    real_ip_recursive on;', '    set_real_ip_from 0.0.0.0/0;'] : []),
      ...headerLines(f),
      ...upstreamLines(f, o.backends),
      '        keepalive 320; keepalive_time 1h; keepalive_timeout 60s; keepalive_requests 10000;',
      '    }',
      '    server {',
      `        server_name ${o.host};`,
      `        listen 127.0.0.1:${o.port} default_server reuseport backlog=4096;`,
      ...(f.requestId && f.maps && f.luaRequestId === true
        ? [
            f.luaChunk === 'loaded'
              ? '        set_by_lua_block $portico_request_id { return (package.loaded["portico.request_id"] or require("portico.request_id")).value() }'
              : '        set_by_lua_block $portico_request_id { return require("portico.request_id").value() }',
          ]
        : []),
      ...(f.clientCert === 'maps' ? ['        set $portico_client_auth "";'] : []),
      '        location / {',
      '            set $portico_backend default_bench_80;',
      ...(f.metricsLabel ? ['            set $portico_metrics "default|bench|bench|bench.test|default_bench_80";'] : []),
      '            proxy_pass http://static_backend;',
      '        }',
      '    }',
      '}',
      '',
    ].join('\n');
}
