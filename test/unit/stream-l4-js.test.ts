// The stream section's Gateway servers with and without njs (render/stream-l4-js.ts, docs/adr/0041), and the peers
// tables: JSON data whatever the names, addresses that are not IP:port left out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { GatewayStreamServer } from '../../src/model/gateway/l4-routes.js';
import { streamModuleLines, streamSection } from '../../src/render/stream.js';
import { l4PeerTables, type L4JsOptions } from '../../src/render/stream-l4-js.js';

const JS: L4JsOptions = { module: '/usr/lib/nginx/modules/ngx_stream_js_module.so', script: '/opt/portico/njs/portico_l4.js', tableDir: '/run/portico/l4' };

function server(protocol: 'tcp' | 'udp', port: number, service: string, endpoints: readonly { address: string; port: number }[]): GatewayStreamServer {
  return {
    protocol,
    port,
    listener: { gateway: 'a/l4', name: 'db', port: 5432 },
    route: 'a/db',
    kind: protocol === 'tcp' ? 'TCPRoute' : 'UDPRoute',
    backends: [{ service, servicePort: 5432, weight: 3, endpoints: endpoints.map((e) => ({ ...e })) }],
  };
}
const stream = (servers: readonly GatewayStreamServer[]): Parameters<typeof streamSection>[0] => ({ services: [], passthrough: undefined, gateway: servers });
const render = (servers: readonly GatewayStreamServer[], js?: L4JsOptions): string[] =>
  streamSection(stream(servers), { workDir: '/run/portico', httpsPort: 443, listenAddress: '', ...(js ? { l4Js: js } : {}) });

void test('with njs: no endpoint in nginx.conf, each server reads its own table through $portico_l4_peer', () => {
  const servers = [server('tcp', 15432, 'a/db-a', [{ address: '10.0.0.1', port: 5432 }]), server('udp', 1053, 'a/dns', [{ address: '10.0.0.2', port: 53 }])];
  const lines = render(servers, JS);
  assert.ok(!lines.some((l) => l.includes('10.0.0.')), lines.join('\n'));
  assert.deepEqual(
    lines.filter((l) => /js_|portico_l4|set \$/.test(l)),
    [
      '    js_import portico_l4 from "/opt/portico/njs/portico_l4.js";',
      '    js_set $portico_l4_peer portico_l4.peer;',
      '    upstream portico_l4_none { server 127.0.0.1:1 down; }',
      '        set $portico_l4_table "/run/portico/l4/tcp-15432.json";',
      '        proxy_pass $portico_l4_peer;',
      '        set $portico_l4_table "/run/portico/l4/udp-1053.json";',
      '        proxy_pass $portico_l4_peer;',
    ],
  );
  assert.deepEqual(streamModuleLines(stream(servers), [], JS), ['load_module "/usr/lib/nginx/modules/ngx_stream_module.so";', `load_module "${JS.module}";`]);
});

void test('without njs, or without a Gateway TCP/UDP server: static upstreams and no njs module loaded', () => {
  const servers = [server('tcp', 15432, 'a/db-a', [{ address: '10.0.0.1', port: 5432 }])];
  const lines = render(servers);
  assert.ok(lines.includes('        server 10.0.0.1:5432 weight=3;'), lines.join('\n'));
  assert.ok(!lines.some((l) => l.includes('portico_l4')));
  assert.deepEqual(streamModuleLines(stream([]), [], JS), ['load_module "/usr/lib/nginx/modules/ngx_stream_module.so";']);
  assert.ok(!render([], JS).some((l) => l.includes('js_')));
});

void test('peers tables: hostile names stay JSON strings, addresses that are not IP:port are left out', () => {
  const hostile = 'a/x"}]};\nproxy_pass 6.6.6.6:1;\u2028//';
  const tables = l4PeerTables([
    server('tcp', 15432, hostile, [
      { address: '10.0.0.1', port: 5432 },
      { address: 'fd00::1', port: 5432 },
      { address: 'evil.example', port: 80 },
      { address: '10.0.0.2;', port: 80 },
      { address: '10.0.0.3', port: 70000 },
    ]),
  ]);
  assert.deepEqual([...tables.keys()], ['tcp-15432.json']);
  const text = tables.get('tcp-15432.json') ?? '';
  assert.equal(text.split('\n').length, 2, 'one line of JSON');
  assert.deepEqual(JSON.parse(text), {
    listener: 'a/l4/db',
    port: 5432,
    route: 'TCPRoute a/db',
    backends: [{ service: `${hostile}:5432`, weight: 3, endpoints: ['10.0.0.1:5432', '[fd00::1]:5432'] }],
  });
});
