// Three real Portico replicas on one Lease against the API server double: one leader at a time, status written by
// the leader once per real change, the --publish-service address followed, other classes never written, Events,
// handover after SIGKILL within the TTL and after SIGTERM within a second, and the last replica clearing status.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ingress, ingressClass, service } from '../support/objects.js';
import { until, type Running } from '../support/portico.js';
import { put, route, startCluster, type Cluster } from '../kube/cluster.js';
import { HolderLog, NS, addressOf, events, exited, holder, kill, overlaps, reloadingRoute, replica, statusWrites } from './replicas.js';

const TTL = 3000;
const settle = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const lb = (ip: string): unknown => ({ ...service('portico', NS), spec: { type: 'LoadBalancer', ports: [{ port: 80 }] }, status: { loadBalancer: { ingress: [{ ip }] } } });
const updatedLines = (p: Running): number => p.output.filter((l) => l.includes('"msg":"Ingress status updated"')).length;

describe('duties with three replicas', () => {
  let c: Cluster;
  let log: HolderLog;
  const replicas = new Map<string, Running>();
  /** When each replica stopped leading for good (killed or stopped), for the overlap check. */
  const ends = new Map<string, number>();
  let leader = '';

  before(async () => {
    c = await startCluster(['one', 'two'], ['default', NS]);
    put(c.api, ingressClass('other', 'example.com/other'));
    put(c.api, lb('198.51.100.1'));
    put(c.api, route('app1', 'app1.test', 'one'));
    // a server block: app2 leaving the class (below) is then a reload, so each replica records a RELOAD Event
    put(c.api, reloadingRoute('app2', 'app2.test', 'two'));
    put(c.api, ingress('theirs', { className: 'other', host: 'theirs.test', paths: [{ path: '/', type: 'Prefix', service: 'one' }] }));
    put(
      c.api,
      ingress('bad', { className: 'portico', host: 'bad.test', paths: [{ path: '/', type: 'Prefix', service: 'one' }], annotations: { 'nginx.ingress.kubernetes.io/proxy-body-size': 'lots' } }),
    );
    put(c.api, route('nosvc', 'nosvc.test', 'missing'));
    put(c.api, ingress('late', { className: 'portico', host: 'app1.test', created: '2026-02-01T00:00:00Z', paths: [{ path: '/', type: 'Prefix', service: 'two' }] }));
    log = new HolderLog(c.api);
    for (const name of ['p1', 'p2', 'p3']) replicas.set(name, await replica(c, name, ['--publish-service', `${NS}/portico`]));
  });

  after(async () => {
    log.stop();
    await c.stop();
  });

  test('one replica leads and writes each Ingress status once', async () => {
    await until('a Lease holder', () => holder(c.api) !== '', 10_000);
    leader = holder(c.api);
    for (const name of ['app1', 'app2']) {
      await until(`${name} status`, () => JSON.stringify(addressOf(c.api, name)) === '[{"ip":"198.51.100.1"}]', 10_000);
    }
    await settle(TTL); // several renewals and every replica's syncs
    assert.equal(statusWrites(c.api, 'app1').length, 1);
    assert.equal(statusWrites(c.api, 'app2').length, 1);
    const names = statusWrites(c.api).map((w) => w.name);
    assert.equal(new Set(names).size, names.length, `each Ingress written once: ${names.join(', ')}`);
    for (const [name, p] of replicas) assert.equal(updatedLines(p), name === leader ? names.length : 0, `status writes logged by ${name}`);
    assert.deepEqual(
      log.changes.map((x) => x.holder).filter((h) => h !== ''),
      [leader],
      'the holder never changed',
    );
    assert.deepEqual(overlaps(replicas, ends), []);
    process.stdout.write(`# leader ${leader}; status writes after start: ${names.length} (${names.join(', ')})\n`);
  });

  test('the address follows the --publish-service load-balancer IP, one write per Ingress', async () => {
    const before = statusWrites(c.api).length;
    put(c.api, lb('198.51.100.2'));
    for (const name of ['app1', 'app2']) {
      await until(`${name} follows`, () => JSON.stringify(addressOf(c.api, name)) === '[{"ip":"198.51.100.2"}]', 10_000);
    }
    await settle(1500);
    assert.equal(statusWrites(c.api, 'app1').length, 2);
    assert.equal(statusWrites(c.api, 'app2').length, 2);
    process.stdout.write(`# status writes for one load-balancer IP change: ${statusWrites(c.api).length - before}\n`);
  });

  test("another class's Ingress is never written; one that stops being ours loses its address", async () => {
    // A user's edit changes the spec only: the status Portico wrote stays on the object until Portico removes it.
    const { status } = c.api.get('Ingress', 'default', 'app2') as { status?: unknown };
    put(c.api, { ...ingress('app2', { className: 'other', host: 'app2.test', paths: [{ path: '/', type: 'Prefix', service: 'two' }] }), status });
    await until('app2 address removed', () => addressOf(c.api, 'app2').length === 0, 10_000);
    await settle(1500);
    assert.equal(statusWrites(c.api, 'app2').length, 3, 'one write removes it, and nothing more');
    assert.equal(statusWrites(c.api, 'theirs').length, 0);
    assert.deepEqual(addressOf(c.api, 'theirs'), []);
  });

  test('Events: Sync on Ingresses, RELOAD on the pods, Warnings with their reasons', async () => {
    const has = (ns: string, type: string, reason: string, kind: string, name: string): boolean =>
      events(c.api, ns).some((e) => e.type === type && e.reason === reason && e.regarding.kind === kind && e.regarding.name === name);
    const want: [string, string, string, string, string][] = [
      ['default', 'Normal', 'Sync', 'Ingress', 'app1'],
      ['default', 'Warning', 'InvalidAnnotation', 'Ingress', 'bad'],
      ['default', 'Warning', 'ServiceNotFound', 'Ingress', 'nosvc'],
      ['default', 'Warning', 'PathConflict', 'Ingress', 'late'],
      ...['p1', 'p2', 'p3'].map((p): [string, string, string, string, string] => [NS, 'Normal', 'RELOAD', 'Pod', p]),
    ];
    for (const w of want) await until(`Event ${w.join(' ')}`, () => has(...w), 5000);
    const all = events(c.api, 'default');
    assert.equal(all.filter((e) => e.regarding.name === 'theirs').length, 0, 'nothing about another class');
    const bad = all.find((e) => e.reason === 'InvalidAnnotation')!;
    assert.match(bad.note, /proxy-body-size/);
    const late = all.find((e) => e.reason === 'PathConflict')!;
    assert.match(late.note, /older Ingress default\/app1/);
    process.stdout.write(`# Events: ${all.length} in default, ${events(c.api, NS).length} in ${NS}\n`);
  });

  test('a killed leader (SIGKILL) is replaced within the TTL, with no extra status write', async () => {
    const writes = statusWrites(c.api).length;
    const old = leader;
    const since = Date.now();
    await kill(replicas.get(old)!);
    ends.set(old, Date.now());
    c.api.remove('Pod', NS, old);
    const next = await log.successorOf(old, since, TTL * 3);
    leader = next.holder;
    process.stdout.write(`# handover after SIGKILL of ${old}: ${next.ms} ms (TTL ${TTL} ms)\n`);
    assert.ok(next.ms <= TTL + 1000, `took ${next.ms} ms`);
    await settle(1500);
    assert.equal(statusWrites(c.api).length, writes, 'the status is already right: the new leader writes nothing');
    assert.deepEqual(overlaps(replicas, ends), []);
  });

  test('a stopped leader (SIGTERM) hands over within a second and exits 0', async () => {
    const old = leader;
    const p = replicas.get(old)!;
    const since = Date.now();
    p.proc.kill('SIGTERM');
    await settle(5);
    p.proc.kill('SIGTERM'); // a second signal while stopping must not kill the process halfway (nginx orphaned)
    const next = await log.successorOf(old, since, TTL * 3);
    leader = next.holder;
    process.stdout.write(`# handover after SIGTERM of ${old}: ${next.ms} ms\n`);
    assert.ok(next.ms < 1000, `took ${next.ms} ms`);
    const code = await exited(p, 10_000);
    assert.equal(code, 0, `exit ${String(code)} ${String(p.proc.signalCode)}:\n${p.output.slice(-8).join('\n')}`);
    await p.stop();
    ends.set(old, Date.now());
    c.api.remove('Pod', NS, old);
    assert.deepEqual(addressOf(c.api, 'app1'), [{ ip: '198.51.100.2' }], 'another replica still serves: status kept');
    assert.deepEqual(overlaps(replicas, ends), []);
    assert.ok(log.changes.every((x, i) => i === 0 || x.holder !== log.changes[i - 1]!.holder));
  });

  test('the last replica clears the addresses when it stops, and exits 0', async () => {
    const p = replicas.get(leader)!;
    assert.equal(await p.stop(), 0);
    assert.deepEqual(addressOf(c.api, 'app1'), [], '--update-status-on-shutdown');
    assert.equal(statusWrites(c.api, 'theirs').length, 0);
    assert.ok(p.output.some((l) => l.includes('"msg":"stopped"')));
    const logged = [...replicas.values()].reduce((n, r) => n + updatedLines(r), 0);
    assert.equal(logged, statusWrites(c.api).length, 'every status write was made (and logged) by the leader of the time');
  });
});
