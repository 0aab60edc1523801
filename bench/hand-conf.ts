// bench/proxy's hand-written nginx.conf files: the `same`, `minimal`, `bare` and `floor` sides (see bench/README.md).
// Pure text: the proxy headers and maps of src/render/conf-main.ts and src/render/tls.ts written out by hand.

const LOG_FORMAT = `    log_format portico '$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent '
                       '"$http_referer" "$http_user_agent" $request_length $request_time '
                       '[$portico_backend] $upstream_addr $upstream_status $upstream_response_time $req_id';`;

// The proxy headers and maps Portico renders at http level by default (src/render/conf-main.ts, globals.ts), written
// out by hand. The four ssl-client-* names are set empty (dropping a client's headers of those names; no work per
// request); only servers with client-certificate auth give them values.
export const SAME_HEADERS = `    map $http_upgrade $connection_upgrade { default upgrade; '' ''; }
    map $http_host $best_http_host { default $http_host; '' $host; }
    proxy_set_header Host $best_http_host;
    proxy_set_header Upgrade $http_upgrade;
    proxy_set_header Connection $connection_upgrade;
    proxy_set_header X-Request-ID $req_id;
    proxy_set_header X-Real-IP $remote_addr;
    proxy_set_header X-Forwarded-For $remote_addr;
    proxy_set_header X-Forwarded-Host $best_http_host;
    proxy_set_header X-Forwarded-Port $server_port;
    proxy_set_header X-Forwarded-Proto $scheme;
    proxy_set_header X-Forwarded-Scheme $scheme;
    proxy_set_header X-Scheme $scheme;
    proxy_set_header Proxy "";
    proxy_set_header ssl-client-verify "";
    proxy_set_header ssl-client-subject-dn "";
    proxy_set_header ssl-client-issuer-dn "";
    proxy_set_header ssl-client-cert "";`;

export const MINIMAL_HEADERS = `    proxy_set_header Host $host;
    proxy_set_header Connection "";`;

// The `floor` side: `same`, but its upstream is balanced by the smallest useful balancer_by_lua (round robin over
// the two ports in a Lua upvalue, no lookup of any kind): the cost of the Lua balancer itself on this nginx build,
// which no Lua-balanced configuration can go below.
const FLOOR_LUA = `load_module /usr/lib/nginx/modules/ndk_http_module.so;
load_module /usr/lib/nginx/modules/ngx_http_lua_module.so;
`;
function floorUpstream(backends: readonly number[]): string {
  return `    init_by_lua_block {
        local set_current_peer = require("ngx.balancer").set_current_peer
        local ports, i = { ${backends.join(', ')} }, 0
        package.loaded.floor = { balance = function() i = i % #ports + 1; set_current_peer("127.0.0.1", ports[i]) end }
    }
    upstream static_backend {
        server 0.0.0.1;
        balancer_by_lua_block { require("floor").balance() }`;
}

export interface HandConf {
  readonly port: number;
  readonly backends: readonly number[];
  readonly workers: number;
  readonly host: string;
  /** SAME_HEADERS or MINIMAL_HEADERS. */
  readonly headers: string;
  /** Lines added at the top of the server{} block. */
  readonly serverExtra: string;
  /** The `floor` side: the upstream balanced by the smallest balancer_by_lua instead of static servers. */
  readonly lua?: boolean;
  /** false: no access log and no variable set in the location (the `bare` side: the issue's static nginx). */
  readonly log?: boolean;
}

export function handConf(o: HandConf): (dir: string) => string {
  const { port, backends, headers, serverExtra, lua = false, log = true } = o;
  const upstream = lua
    ? floorUpstream(backends)
    : `    upstream static_backend {
${backends.map((p) => `        server 127.0.0.1:${p};`).join('\n')}`;
  return (dir) => `${lua ? FLOOR_LUA : ''}worker_processes ${o.workers};
pid ${dir}/nginx.pid;
events { worker_connections 16384; multi_accept on; }
http {
    client_body_temp_path ${dir}/tmp;
    proxy_temp_path ${dir}/tmp;
${
  log
    ? `${LOG_FORMAT}
    access_log ${dir}/logs/access.log portico buffer=64k flush=1s;`
    : '    access_log off;'
}
    server_tokens off;
    sendfile on; tcp_nopush on; tcp_nodelay on;
    keepalive_timeout 75s; keepalive_requests 1000;
    map $http_x_request_id $req_id { default $http_x_request_id; '' $request_id; }
    proxy_http_version 1.1;
    proxy_connect_timeout 5s; proxy_send_timeout 60s; proxy_read_timeout 60s;
    proxy_buffering off; proxy_request_buffering on; proxy_buffer_size 4k; proxy_buffers 4 4k;
    proxy_next_upstream error timeout; proxy_next_upstream_tries 3;
    proxy_redirect off;
${headers}
${upstream}
        keepalive 320; keepalive_time 1h; keepalive_timeout 60s; keepalive_requests 10000;
    }
    server {
        server_name ${o.host};
        listen 127.0.0.1:${port} default_server reuseport backlog=4096;${serverExtra}
        location / {
${log ? '            set $portico_backend default_bench_80;\n' : ''}            proxy_pass http://static_backend;
        }
    }
}
`;
}
