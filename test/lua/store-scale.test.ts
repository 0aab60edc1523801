// Real nginx + portico.store at 100,000 Ingresses (docs/adr/0040): the backends list and the route table of a cluster
// that size are stored whole side by side in portico_backends, and stored again at other sizes (the slab allocator's
// free space is then split). In a 64m dict the second of them was refused ("no memory") and nothing was served.
// The route table's entries are stored opened by a count (docs/adr/0061): without it this test took 300 s in about
// half the nginx starts (string-hash chains of LuaJIT's table); with it each route table POST took 3-6 s here.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { type Nginx, request, startNginx } from './harness.js';

const HOSTS = 100_000;

/** `HOSTS` backends of `per` pod endpoints each, as JSON text (~5 MiB per endpoint per 100,000). */
function backendsJson(per: number): string {
  const parts: string[] = [];
  for (let i = 0; i < HOSTS; i += 1) {
    const eps = Array.from({ length: per }, (_, k) => `{"address":"10.${100 + k}.${(i >> 8) & 255}.${i & 255}","port":8080}`);
    parts.push(`{"name":"team-${i % 10_000}_app-${i}_80","endpoints":[${eps.join(',')}]}`);
  }
  return `[${parts.join(',')}]`;
}

/** A route table of `HOSTS` hosts, each entry about `labels` bytes of metrics labels plus ~150 of structure. */
function routesJson(labels: number): string {
  const pad = 'x'.repeat(labels);
  const entry = (i: number): string =>
    `{"hsts":false,"exact":{},"prefix":{"/":0},"targets":[{"backend":"team-${i % 10_000}_app-${i}_80","canary":"","redirect":0,"denied":false,"rewrite":false,"profile":"","metrics":"${pad}"}]}`;
  const hosts = Array.from({ length: HOSTS }, (_, i) => `"h${i}.scale.test":${entry(i)}`);
  return `{"hosts":{${hosts.join(',')}},"default":{"hsts":false,"exact":{},"prefix":{"/":0},"targets":[{"backend":"","canary":"","redirect":0,"denied":false,"rewrite":false,"profile":"","metrics":""}]}}`;
}

void describe('lua store at 100,000 Ingresses', () => {
  let nginx: Nginx;
  before(async () => {
    nginx = await startNginx({ workers: 1 });
  });
  after(async () => {
    await nginx.stop();
  });

  void it('stores the backends and the route table of 100,000 Ingresses whole, and again at other sizes', async () => {
    const MiB = 2 ** 20;
    const steps: [string, string][] = [
      ['/configuration/backends?id=b1', backendsJson(10)],
      ['/configuration/routes?id=r1', routesJson(150)],
      ['/configuration/backends?id=b2', backendsJson(2)],
      ['/configuration/routes?id=r2', routesJson(160)],
    ];
    for (const [path, body] of steps) {
      // a million endpoints are validated one by one: minutes on a loaded machine, not the harness's 5 s
      const res = await request(nginx.statusPort, path, { method: 'POST', body, headers: { 'x-portico-token': nginx.token }, timeoutMs: 240_000 });
      assert.equal(res.status, 201, `${path} (${(body.length / MiB).toFixed(1)} MiB): ${res.body.slice(0, 300)}`);
    }
    assert.ok(steps[0]![1].length > 40 * MiB && steps[1]![1].length > 25 * MiB, 'the sizes of bench/scale-profile at 100,000');
    const held = await nginx.get('/configuration/routes');
    assert.equal(held.status, 200);
    assert.ok(held.body.includes('"h99999.scale.test"'));
  });
});
