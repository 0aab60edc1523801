// A received model's strings shared (src/worker/model-intern.ts): the model reads the same afterwards, every object
// the same object, whatever crossed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deserialize, serialize } from 'node:v8';
import { buildModel } from '../../src/model/build.js';
import { EMPTY_SNAPSHOT, type Snapshot } from '../../src/model/input.js';
import type { Model } from '../../src/model/types.js';
import { internReceived } from '../../src/worker/model-intern.js';
import { MODEL_OPTIONS, ingress, ingressClass, service, slice } from '../support/objects.js';

test('interning what crossed changes nothing a reader sees: the same values, the same objects', () => {
  const snap: Snapshot = {
    ...EMPTY_SNAPSHOT,
    ingresses: [
      ingress('a', {
        className: 'portico',
        host: 'a.test',
        paths: [
          { path: '/', type: 'Prefix', service: 'web' },
          { path: '/x', type: 'Exact', service: 'web' },
        ],
      }),
      ingress('b', { className: 'portico', host: 'b.test', paths: [{ path: '/', type: 'Prefix', service: 'gone' }], annotations: { 'nginx.ingress.kubernetes.io/rewrite-target': '/' } }),
    ],
    ingressClasses: [ingressClass('portico')],
    services: [service('web')],
    endpointSlices: [slice('web', 8080, ['10.0.0.1'])],
  };
  const built = buildModel(snap, MODEL_OPTIONS);
  // as postMessage gives it: the same serializer
  const got = deserialize(serialize(built)) as Model;
  const before = deserialize(serialize(got)) as Model;
  const target = got.servers[0]?.locations[0]?.target;
  internReceived(got.servers, got.upstreams, got.ingresses);
  assert.deepEqual(got, before);
  assert.deepEqual(got, built);
  assert.equal(got.servers[0]?.locations[0]?.target, target, 'the same target object');
  assert.ok(got.servers.some((s) => s.locations.length > 1));
});
