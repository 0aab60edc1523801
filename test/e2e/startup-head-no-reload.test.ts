// End to end, local mode, real nginx: a first sync of more than HEAD_MIN_INGRESSES Ingresses whose few server-block
// Ingresses (here a body size limit, in the namespace that appears last) stand alone takes their namespace into the
// head first, so the whole's nginx.conf is the head's: the whole is pushed to Lua without a reload (docs/adr/0061),
// and the limited host still refuses a body over its limit while the other hosts take it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startBackend, type Backend } from '../support/backends.js';
import { ingress } from '../support/objects.js';
import { manifestFolder, serviceFor, type ManifestDir } from '../support/manifests.js';
import { get, startPortico, until, type Running } from '../support/portico.js';
import { HEAD_MIN_INGRESSES } from '../../src/controller/startup-head.js';

const N = HEAD_MIN_INGRESSES + 100;
const SPACES = 210;
const nsOf = (i: number): string => `ns-${i % SPACES}`;
/** The last Ingress, in ns-209 (the last namespace to appear): a 1 KiB body limit keeps its host in a server block. */
const LIMITED = N - 1;

describe('a large first sync whose server-block Ingresses are all in the head: no reload for the whole', () => {
  let backend: Backend;
  let folder: ManifestDir;
  let portico: Running;
  const lines = (): string[] => portico.output.filter((l) => l.includes('"msg":"sync"'));
  const reloads = (line: string): number => Number(/"reloads":(\d+)/.exec(line)?.[1] ?? NaN);

  before(async () => {
    backend = await startBackend('web');
    folder = await manifestFolder();
    const objects: unknown[] = [];
    for (let s = 0; s < SPACES; s += 1) objects.push(...serviceFor('web', [backend], { namespace: nsOf(s) }));
    for (let i = 0; i < N; i += 1) {
      const created = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
      const annotations = i === LIMITED ? { annotations: { 'nginx.ingress.kubernetes.io/proxy-body-size': '1k' } } : {};
      objects.push(ingress(`app-${i}`, { namespace: nsOf(i), className: 'portico', created, host: `h${i}.test`, paths: [{ path: '/', type: 'Prefix', service: 'web' }], ...annotations }));
    }
    await folder.write('cluster.json', objects);
    portico = await startPortico(['--manifests', folder.dir, '--worker-processes', '1'], { healthyTimeoutMs: 240_000 });
  });

  after(async () => {
    await portico?.stop();
    await backend?.close();
    await folder?.remove();
  });

  test('the head holds the limited host; the whole is a push, not a reload', async () => {
    await until('a sync of everything logged', () => lines().some((l) => !l.includes('"head":')), 60_000);
    const all = lines();
    const head = all[0] ?? '';
    const whole = all.find((l) => !l.includes('"head":')) ?? '';
    assert.match(head, /"head":\d+/, `the first sync applies the head: ${head}`);
    assert.match(whole, /"plan":"dynamic"/, `the whole changes no nginx.conf: ${whole}`);
    assert.equal(reloads(whole), reloads(head), 'no reload between the head and the whole');
  });

  test('every host is served; the limited one refuses a body over 1 KiB, the others take it', async () => {
    const body = 'x'.repeat(2048);
    const limited = await get(portico.http, `h${String(LIMITED)}.test`, '/', { method: 'POST', body });
    assert.equal(limited.status, 413);
    assert.equal((await get(portico.http, `h${String(LIMITED)}.test`, '/', { method: 'POST', body: 'x'.repeat(512) })).status, 200);
    for (const i of [0, 1, SPACES - 2, N - 2]) {
      const r = await get(portico.http, `h${String(i)}.test`, '/', { method: 'POST', body });
      assert.equal(r.status, 200, `h${String(i)}.test: ${String(r.status)}`);
    }
  });
});
