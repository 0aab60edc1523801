// What a whole first build puts off or sends early (docs/adr/0065): its route entries' content keys, made when the
// next render begins, and its model, told before nginx.conf is rendered (the build worker sends it ahead).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseFlags } from '../../src/config/flags.js';
import { createLogger } from '../../src/log.js';
import { EMPTY_SNAPSHOT, type Snapshot } from '../../src/model/input.js';
import type { Model } from '../../src/model/types.js';
import { AnnotationStage } from '../../src/pipeline/annotations.js';
import { renderOptions } from '../../src/pipeline/build.js';
import { RouteMemo, type RouteEntry } from '../../src/render/memo.js';
import { IncrementalBuilder } from '../../src/worker/incremental.js';
import { ingress, ingressClass, service, slice } from '../support/objects.js';

const entry = (json: string): RouteEntry => ({ eligible: true, json, profiles: [] });

test('a blank render keys its entries only when the next render begins, which then finds them by content', () => {
  const memo = new RouteMemo();
  memo.begin('ctx');
  assert.equal(memo.blank, true, 'nothing to find in a first render');
  const read: string[] = [];
  const got = memo.keyedLater(
    () => {
      read.push('a');
      return 'input of a';
    },
    () => entry('{"a":1}'),
  );
  memo.end();
  assert.deepEqual(read, [], 'the key is not made during the render');
  memo.begin('ctx');
  assert.deepEqual(read, ['a'], 'the next render made it as it began');
  assert.equal(memo.blank, false, 'the next render has something to find');
  let made = 0;
  const again = memo.keyed('input of a', () => {
    made += 1;
    return entry('{"a":2}');
  });
  assert.equal(made, 0, 'an equal input takes the kept entry');
  assert.equal(again.entry, got.entry);
  assert.equal(again.key, got.key, 'the lazy key is the one keyed() makes');
  assert.deepEqual(read, ['a'], 'the input is read once');
});

test('a render in another context forgets the entries whose keys were put off, without reading their input', () => {
  const memo = new RouteMemo();
  memo.begin('one');
  let reads = 0;
  memo.keyedLater(
    () => {
      reads += 1;
      return 'x';
    },
    () => entry('{}'),
  );
  memo.end();
  memo.begin('two');
  assert.equal(reads, 0);
  assert.equal(memo.blank, true);
  let made = 0;
  memo.keyed('x', () => {
    made += 1;
    return entry('{}');
  });
  assert.equal(made, 1, 'nothing of the other context is found');
});

test("a whole build tells its model before rendering, the very model it returns; a trial and a part don't", () => {
  const config = parseFlags(['--manifests', '/nonexistent', '--work-dir', '/tmp/portico-first-build-test'], {});
  const builder = new IncrementalBuilder(new AnnotationStage(config, createLogger('silent')), config, renderOptions(config, undefined), true);
  const ing = (name: string, host: string) => ingress(name, { className: 'portico', host, paths: [{ path: '/', type: 'Prefix', service: 'web' }] });
  const snap: Snapshot = {
    ...EMPTY_SNAPSHOT,
    ingressClasses: [ingressClass('portico')],
    services: [service('web')],
    endpointSlices: [slice('web', 80, ['10.0.0.1'])],
    ingresses: [ing('a', 'a.test'), ing('b', 'b.test')],
  };
  const told: Model[] = [];
  const first = builder.build(snap, false, (m) => told.push(m));
  assert.equal(told.length, 1);
  assert.equal(told[0], first.model);
  builder.build(snap, true, (m) => told.push(m));
  const next = builder.build({ ...snap, ingresses: [ing('a', 'a.test'), ing('b', 'b2.test')] }, false, (m) => told.push(m));
  assert.equal(next.part !== undefined, true, 'the change was built as a part');
  assert.equal(told.length, 1, 'neither the trial nor the part told a model');
  assert.deepEqual(next.model.servers.map((s) => s.host).sort(), ['_', 'a.test', 'b2.test']);
});
