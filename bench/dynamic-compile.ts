// bench/dynamic-compile: what a route table push costs nginx at 1,000 / 10,000 / 30,000 hosts (docs/adr/0014).
//
//   npx tsc -p tsconfig.json && node dist/bench/dynamic-compile.js
//
// One nginx worker (test/lua/harness.ts) with portico.router; for each size a generated table (5 paths a host, 10%
// with a redirect and HSTS) is POSTed to /configuration/routes (validated and stored whole), then the first request
// after it decodes and compiles the table in the worker (timed inside nginx with ngx.now), and a second one does
// not. Single samples; bounded: three sizes, one nginx stopped by its PID.
import { request, startNginx } from '../test/lua/harness.js';

const MATCH = `
        location = /match {
            content_by_lua_block {
                local router = require("portico.router")
                ngx.update_time()
                local t0 = ngx.now()
                local t = router.match(ngx.var.arg_h, "/api/v1/x")
                ngx.update_time()
                ngx.print(string.format("%.1f", (ngx.now() - t0) * 1000), " ", t and t.backend or "-")
            }
        }`;

function table(n: number): unknown {
  const targets: unknown[] = [];
  const hosts: Record<string, unknown> = {};
  for (let i = 0; i < n; i += 1) {
    const ns = `ns${i % 1000}`;
    targets.push({
      backend: `${ns}_svc${i}_80`,
      canary: '',
      redirect: i % 10 === 0 ? 308 : 0,
      denied: false,
      metrics: `${ns}|ing${i}|svc${i}|h${i}.scale.test|${ns}_svc${i}_80`,
      rewrite: false,
      profile: '',
    });
    hosts[`h${i}.scale.test`] = { exact: { '/api/v1/x': i, '/api': i }, prefix: { '/': i, '/api/': i, '/static/': i }, hsts: i % 10 === 0 };
  }
  return { targets, hosts, default: { exact: {}, prefix: { '/': 0 }, hsts: false } };
}

const nginx = await startNginx({ workers: 1, locations: MATCH });
try {
  console.log('hosts   table MB  POST ms  first request ms (decode + compile)  next request ms');
  for (const n of [1000, 10_000, 30_000]) {
    const body = table(n);
    const t0 = performance.now();
    const posted = await nginx.post('/configuration/routes', body);
    const postMs = performance.now() - t0;
    if (posted.status !== 201) throw new Error(`POST answered ${posted.status}: ${posted.body}`);
    const first = (await request(nginx.port, `/match?h=h${n - 1}.scale.test`)).body.split(' ')[0];
    const next = (await request(nginx.port, `/match?h=h${n - 1}.scale.test`)).body.split(' ')[0];
    console.log(
      `${String(n).padStart(6)}  ${(JSON.stringify(body).length / 1e6).toFixed(1).padStart(8)}  ${postMs.toFixed(0).padStart(7)}  ${String(first).padStart(35)}  ${String(next).padStart(15)}`,
    );
  }
} finally {
  await nginx.stop();
}
