// What the Gateway API route table (docs/adr/0011) costs per request: Portico in local mode, one nginx worker, one
// hand-written nginx backend; wrk on a path-only HTTPRoute (no Lua but the balancer), a location whose request walks
// three header/query/method candidates to the last one, a 1:1 weighted split, and a rule with a request header
// modifier. Rounds interleave the cases (A B C D, A B C D, ...) so that load drift on a shared machine hits them
// alike; the median of the rounds is printed. Bounded: --rounds (1-9, default 3) x 4 cases x --seconds (1-10, default 3).
// Run: npm run bench:gateway [-- --rounds 3 --seconds 3]
import { rm } from 'node:fs/promises';
import { backendConf, fmt, intArg, median, startNginx, wrk, type WrkResult } from './lib.js';
import { gateway, gatewayClass, httpRoute } from '../test/support/gateway.js';
import { manifestDir, writeManifests } from '../test/support/manifests.js';
import { service, slice } from '../test/support/objects.js';
import { freePort, startPortico } from '../test/support/portico.js';

const ref = (name: string, weight = 1): Record<string, unknown> => ({ name, port: 80, weight });
const at = (value: string, more: Record<string, unknown> = {}): Record<string, unknown> => ({ path: { type: 'PathPrefix', value }, ...more });
const CASES: readonly { name: string; path: string }[] = [
  { name: 'path only (no Lua route table)', path: '/plain' },
  { name: '3 conditional candidates, then the fallback', path: '/cond' },
  { name: 'weighted 1:1 split', path: '/split' },
  { name: 'RequestHeaderModifier set', path: '/headers' },
];

async function main(): Promise<void> {
  const rounds = intArg(process.argv, '--rounds', 3, 1, 9);
  const seconds = intArg(process.argv, '--seconds', 3, 1, 10);
  const [p1, p2] = [await freePort(), await freePort()];
  const backend = await startNginx('gw-backend', backendConf([p1, p2]), '1', p1);
  const dir = await manifestDir();
  try {
    await writeManifests(dir, 'all.yaml', [
      gatewayClass('portico'),
      gateway('web', [{ name: 'http' }]),
      service('one'),
      slice('one', p1, ['127.0.0.1']),
      service('two'),
      slice('two', p2, ['127.0.0.1']),
      httpRoute('bench', {
        parentRefs: [{ name: 'web' }],
        hostnames: ['gw.bench'],
        rules: [
          { matches: [at('/plain')], backendRefs: [ref('one')] },
          { matches: [at('/cond', { headers: [{ name: 'x-a', value: '1' }] })], backendRefs: [ref('two')] },
          { matches: [at('/cond', { queryParams: [{ name: 'q', type: 'RegularExpression', value: '[0-9]+' }] })], backendRefs: [ref('two')] },
          { matches: [at('/cond', { method: 'POST' })], backendRefs: [ref('two')] },
          { matches: [at('/cond')], backendRefs: [ref('one')] },
          { matches: [at('/split')], backendRefs: [ref('one'), ref('two')] },
          { matches: [at('/headers')], backendRefs: [ref('one')], filters: [{ type: 'RequestHeaderModifier', requestHeaderModifier: { set: [{ name: 'X-B', value: 'b' }] } }] },
        ],
      }),
    ]);
    const portico = await startPortico(['--manifests', dir, '--worker-processes', '1', '--log-level', 'info']);
    try {
      const results = new Map<string, WrkResult[]>(CASES.map((c) => [c.name, []]));
      for (let r = 0; r < rounds; r++) {
        for (const c of CASES) results.get(c.name)?.push(await wrk(`http://127.0.0.1:${portico.http}${c.path}`, 'gw.bench', { seconds, connections: 8, cpus: '0' }));
      }
      console.log(`| case | req/s (median of ${rounds}) | p50 ms | p99 ms | non-2xx |`);
      console.log('|---|---|---|---|---|');
      for (const c of CASES) {
        const rs = results.get(c.name) ?? [];
        console.log(
          `| ${c.name} | ${fmt(median(rs.map((x) => x.rps)))} | ${fmt(median(rs.map((x) => x.p50ms)), 2)} | ${fmt(median(rs.map((x) => x.p99ms)), 2)} | ${rs.reduce((a, x) => a + x.non2xx + x.socketErrors, 0)} |`,
        );
      }
    } finally {
      await portico.stop();
    }
  } finally {
    await backend.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
