// The build worker (controller/offload.ts): a sync's model comes back whole, and a worker
// that dies is reported and replaced on the next request.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Worker } from 'node:worker_threads';
import { parseFlags } from '../../src/cli/flags.js';
import { renderOptions } from '../../src/controller/controller.js';
import { Offload } from '../../src/controller/offload.js';
import { EMPTY_SNAPSHOT } from '../../src/model/input.js';
import { ingress, ingressClass, service } from '../support/objects.js';

test('a dead build worker is replaced and the next build succeeds', async () => {
  const config = parseFlags(['--manifests', '/nonexistent', '--work-dir', '/tmp/portico-offload-test'], {});
  const deaths: string[] = [];
  const o = new Offload(config, renderOptions(config, undefined), (why) => {
    deaths.push(why);
  });
  try {
    const snap = {
      ...EMPTY_SNAPSHOT,
      ingressClasses: [ingressClass('portico')],
      services: [service('web')],
      ingresses: [ingress('a', { className: 'portico', host: 'a.test', paths: [{ path: '/', type: 'Prefix', service: 'web' }] })],
    };
    const first = await o.build(snap);
    assert.deepEqual(
      first.model.servers.map((s) => s.host),
      ['a.test', '_'],
    );
    // The worker dies (as out of memory would end it): the death is reported, and the next build starts a new one.
    await (o as unknown as { worker: Worker }).worker.terminate();
    for (let i = 0; i < 100 && deaths.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(deaths.length, 1);
    assert.match(deaths[0] ?? '', /the build worker exited/);
    const again = await o.build(snap);
    assert.equal(again.conf.hash, first.conf.hash, 'the new worker renders the same configuration');
    assert.equal(o.starts, 2);
  } finally {
    await o.close();
  }
});

test('successive builds see each change: a changed, an added and a removed Ingress (only changes cross to the worker)', async () => {
  const config = parseFlags(['--manifests', '/nonexistent', '--work-dir', '/tmp/portico-offload-test'], {});
  const o = new Offload(config, renderOptions(config, undefined));
  try {
    const ing = (name: string, host: string) => ingress(name, { className: 'portico', host, paths: [{ path: '/', type: 'Prefix', service: 'web' }] });
    const base = { ...EMPTY_SNAPSHOT, ingressClasses: [ingressClass('portico')], services: [service('web')] };
    const a = ing('a', 'a.test');
    const hosts = async (ingresses: ReturnType<typeof ing>[]) => (await o.build({ ...base, ingresses })).model.servers.map((s) => s.host);
    assert.deepEqual(await hosts([a, ing('b', 'b.test')]), ['a.test', 'b.test', '_']);
    assert.deepEqual(await hosts([a, ing('b', 'b2.test'), ing('c', 'c.test')]), ['a.test', 'b2.test', 'c.test', '_']);
    assert.deepEqual(await hosts([ing('c', 'c.test')]), ['c.test', '_']);
  } finally {
    await o.close();
  }
});
