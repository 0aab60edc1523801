// controller/backend-ids.ts: the backends a sync pushes, noted as the changes from the last sync's (only the upstreams
// between the lists' common ends are compared), and the id that says whether nginx already holds them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BackendIds } from '../../src/controller/backend-ids.js';
import { backendsDelta } from '../../src/render/lua-payload.js';
import { entryChanges } from '../../src/render/entry-changes.js';
import type { Model, Upstream } from '../../src/model/types.js';

const upstream = (i: number, address = '10.0.0.1'): Upstream => ({
  name: `ns_svc${String(i).padStart(4, '0')}_80`,
  service: { kind: 'Service', namespace: 'ns', name: `svc${i}` },
  servicePort: 80,
  endpoints: [{ address, port: 8080 }],
  loadBalance: 'round_robin',
  hashBy: '',
  affinity: null,
  tuned: false,
});
const model = (upstreams: Upstream[]): Model => ({ servers: [], upstreams, ingresses: [], problems: [], tls: { certificates: [], hosts: [] } as unknown as Model['tls'] });

/** What comparing every entry finds (entryChanges without a note: a copy of `now` is not noted). */
const walked = (held: ReadonlyMap<string, string>, now: ReadonlyMap<string, string>) => entryChanges(held, new Map(now));

test('a sync that changes a few upstreams of many pushes those only, and the same set keeps its id', () => {
  const ids = new BackendIds();
  const ups = Array.from({ length: 500 }, (_, i) => upstream(i));
  const first = ids.of(model(ups), undefined);
  ids.served(first);
  // one endpoint changed (a new object of the same name), one upstream added, one gone: the rest are the same objects
  const next = [...ups.slice(0, 100), upstream(100, '10.9.9.9'), ...ups.slice(101, 300), upstream(1000), ...ups.slice(300, 449), ...ups.slice(450)];
  const second = ids.of(model(next), first.entries);
  assert.notEqual(second.id, first.id);
  const noted = entryChanges(first.entries, second.entries);
  assert.deepEqual(noted, walked(first.entries, second.entries), 'the noted changes are those a walk of both finds');
  assert.deepEqual(noted, { changed: ['ns_svc0100_80', 'ns_svc1000_80'], removed: ['ns_svc0449_80'] });
  assert.match(backendsDelta(first.entries, second.entries)?.body ?? '', /"remove":\["ns_svc0449_80"\]/);
  ids.served(second);

  // the same objects again: nginx holds them, the id stays
  assert.equal(ids.of(model(next), second.entries).id, second.id);
  // a whole build: every object new, the same content: nothing to push, the id stays
  const rebuilt = next.map((u) => ({ ...u }));
  const third = ids.of(model(rebuilt), second.entries);
  assert.equal(third.id, second.id);
  assert.deepEqual(entryChanges(second.entries, third.entries), { changed: [], removed: [] });
  // an endpoint changed back in the rebuilt list, against a served set that is not the last one (a new nginx): compared whole
  const fourth = ids.of(model([...rebuilt.slice(0, 100), upstream(100), ...rebuilt.slice(101)]), first.entries);
  assert.notEqual(fourth.id, second.id, 'the set differs from what nginx holds (one added, one gone)');
});

test('upstreams changed in scattered places (endpoints refreshed, then a build) push those only, whatever lies between', () => {
  const ids = new BackendIds();
  const ups = Array.from({ length: 1000 }, (_, i) => upstream(i));
  const first = ids.of(model(ups), undefined);
  ids.served(first);
  // the build's list: new objects at both ends of the list with the same content, one endpoint changed in the middle,
  // one upstream gone and one new in its sorted place
  const next = ups.map((u, i) => (i === 2 || i === 997 ? { ...u } : i === 500 ? upstream(500, '10.7.7.7') : u)).filter((_, i) => i !== 700);
  next.splice(300, 0, { ...upstream(300), name: 'ns_svc0300_80a' });
  const second = ids.of(model(next), first.entries);
  const sorted = ({ changed, removed }: { changed: string[]; removed: string[] }) => ({ changed: [...changed].sort(), removed: [...removed].sort() });
  const want = { changed: ['ns_svc0300_80a', 'ns_svc0500_80'], removed: ['ns_svc0700_80'] };
  assert.deepEqual(sorted(entryChanges(first.entries, second.entries)), want, 'the changes noted');
  assert.deepEqual(sorted(walked(first.entries, second.entries)), want, 'the changes a walk of both maps finds');
  assert.match(second.entries.get('ns_svc0500_80') ?? '', /10\.7\.7\.7/);
  assert.equal(second.entries.size, 1000);
});

test('backends warmed ahead (a whole model arriving before its reply) are not serialized again by the sync', () => {
  // upstreams that count the reads of their endpoints: serializing one reads them
  let reads = 0;
  const counted = Array.from({ length: 50 }, (_, i) => {
    const u = upstream(i);
    return Object.defineProperty({ ...u }, 'endpoints', {
      enumerable: true,
      get: () => {
        reads += 1;
        return u.endpoints;
      },
    });
  });
  const ids = new BackendIds();
  const m = model(counted);
  ids.warm(m);
  assert.ok(reads >= 50, 'warming serialized each upstream');
  reads = 0;
  const warmed = ids.of(m, undefined);
  assert.equal(reads, 0, 'the sync serialized none again');
  assert.equal(warmed.entries.size, 50);
  assert.deepEqual([...new BackendIds().of(model(counted), undefined).entries], [...warmed.entries], 'the same entries as without warming');
});
