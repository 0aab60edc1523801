// End to end, local mode, real nginx: a first sync of more than HEAD_MIN_INGRESSES Ingresses applies its head (the
// Ingresses that stand alone, in whole namespaces) and then the whole (docs/adr/0034). A host two namespaces claim
// is never in the head, and once everything is served it is the older Ingress's, as without the head.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startBackend, type Backend } from '../support/backends.js';
import { ingress } from '../support/objects.js';
import { manifestFolder, serviceFor, type ManifestDir } from '../support/manifests.js';
import { startPortico, until, who, type Running } from '../support/portico.js';
import { HEAD_MIN_INGRESSES } from '../../src/controller/startup-head.js';

const N = HEAD_MIN_INGRESSES + 100;
const SPACES = 210;
const nsOf = (i: number): string => `ns-${i % SPACES}`;
/** Ingress `i`: host h<i>.test, but app-0 (older) and app-1 (newer, another namespace) both claim shared.test. */
const hostOf = (i: number): string => (i < 2 ? 'shared.test' : `h${i}.test`);
/** app-1's namespace is served by the `newer` backend, every other namespace by `older`. */
const backendOf = (i: number): 'older' | 'newer' => (i % SPACES === 1 ? 'newer' : 'older');

describe('a large first sync: the head first, then the whole', () => {
  let older: Backend;
  let newer: Backend;
  let folder: ManifestDir;
  let portico: Running;
  const lines = (): string[] => portico.output.filter((l) => l.includes('"msg":"sync"'));

  before(async () => {
    older = await startBackend('older');
    newer = await startBackend('newer');
    folder = await manifestFolder();
    const objects: unknown[] = [];
    for (let s = 0; s < SPACES; s += 1) objects.push(...serviceFor('web', [backendOf(s) === 'newer' ? newer : older], { namespace: nsOf(s) }));
    for (let i = 0; i < N; i += 1) {
      const created = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
      // app-0's server alias renders shared.test as a server block, never in the head: the whole's sync reloads nginx
      const annotations = i === 0 ? { annotations: { 'nginx.ingress.kubernetes.io/server-alias': 'alias.shared.test' } } : {};
      objects.push(ingress(`app-${i}`, { namespace: nsOf(i), className: 'portico', created, host: hostOf(i), paths: [{ path: '/', type: 'Prefix', service: 'web' }], ...annotations }));
    }
    // two Ingresses of another class: the whole's sync says so once (its Ingresses gathered as its model arrived)
    for (const name of ['other-a', 'other-b']) objects.push(ingress(name, { namespace: nsOf(5), className: 'nginx', host: `${name}.test`, paths: [{ path: '/', type: 'Prefix', service: 'web' }] }));
    await folder.write('cluster.json', objects);
    portico = await startPortico(['--manifests', folder.dir, '--worker-processes', '1', '--enable-dynamic-routes', '--log-level', 'debug'], { healthyTimeoutMs: 240_000 });
  });

  after(async () => {
    await portico?.stop();
    await older?.close();
    await newer?.close();
    await folder?.remove();
  });

  test('the head is applied first, then a sync of everything', async () => {
    await until('a sync of everything logged', () => lines().some((l) => !l.includes('"head":')), 60_000);
    const all = lines();
    const first = all.findIndex((l) => l.includes('"head":'));
    assert.equal(first, 0, `the first sync applies the head: ${all[0] ?? ''}`);
    const headed = Number(/"head":(\d+)/.exec(all[0] ?? '')?.[1]);
    assert.ok(headed > 0 && headed < N, `the head holds some Ingresses, not all: ${String(headed)}`);
    assert.ok(all.slice(1).some((l) => !l.includes('"head":')));
    // the head and the whole were each built once
    const builds = portico.output.slice(0, portico.output.indexOf(all.find((l) => !l.includes('"head":')) ?? '')).filter((l) => l.includes('"msg":"build"'));
    assert.equal(builds.length, 2, `the head's build and the whole's, nothing built twice:\n${builds.join('\n')}`);
    // the head on the main thread, done first; the whole the build worker's first build, started beside it (docs/adr/0064)
    assert.match(builds[0] ?? '', /"head":"on the main thread/);
    assert.match(builds[1] ?? '', /"whole":"first build"/);
    // the whole's new hosts went to the route table before its reload (docs/adr/0057): the new workers serve them at once
    const whole = portico.output.indexOf(all.find((l) => !l.includes('"head":')) ?? '');
    const early = portico.output.slice(0, whole).filter((l) => l.includes('hosts new to it added before the reload'));
    assert.match(all.find((l) => !l.includes('"head":')) ?? '', /"plan":"reload"/);
    assert.equal(early.length, 1, 'one push of new hosts before the reload');
    const moved = (JSON.parse(early[0] ?? '{}') as { hosts?: number }).hosts ?? 0;
    assert.ok(moved > N / 2 && moved < N, `most hosts, not the head's: ${String(moved)}`);
    // the whole's backends went to Lua as its model arrived, beside its render (docs/adr/0067): every namespace's
    // Service, the head's kept; the whole's sync then found them held and posted no backends of its own
    const pushes = portico.output.slice(0, whole).filter((l) => /"msg":"backends: /.test(l));
    assert.equal(pushes.length, 2, `the head's backends, then the whole's ahead of its sync:\n${pushes.join('\n')}`);
    assert.match(pushes[0] ?? '', /"backends: pushed all"/);
    const ahead = JSON.parse(pushes[1] ?? '{}') as { msg?: string; backends?: number; added?: number };
    assert.equal(ahead.msg, 'backends: pushed whole ahead of the sync, none removed');
    assert.equal(ahead.backends, SPACES, 'one backend per namespace');
    assert.ok((ahead.added ?? 0) > 0 && (ahead.added ?? 0) < SPACES, `the whole's new backends added to the head's: ${String(ahead.added)}`);
  });

  test('the Ingresses of another class are counted once, after the whole', async () => {
    const said = portico.output.filter((l) => l.includes("not of Portico's class"));
    assert.equal(said.length, 1, said.join('\n'));
    assert.match(said[0] ?? '', /"msg":"2 Ingresses are not served: not of Portico's class \(class nginx: 2, /);
  });

  test('once healthy, every host is served as the whole cluster says: the shared host by its older Ingress', async () => {
    assert.equal(await who(portico.http, 'shared.test', '/'), 'older');
    assert.equal(await who(portico.http, 'h2.test', '/'), 'older');
    assert.equal(await who(portico.http, `h${String(N - 1)}.test`, '/'), 'older');
    assert.equal(await who(portico.http, `h${String(SPACES + 1)}.test`, '/'), 'newer');
  });
});
