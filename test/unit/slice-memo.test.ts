// The endpoints a model reads from EndpointSlices are the same with the build worker's memo as without it
// (src/model/memo.ts, docs/adr/0060): one entry per slice, lists shared only where chosen() would give the same ones,
// and a memo read under another target policy answers for that policy.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildModel } from '../../src/model/build.js';
import { modelMemo } from '../../src/model/memo.js';
import { EMPTY_SNAPSHOT, type Snapshot } from '../../src/model/input.js';
import { DEFAULT_TARGET_POLICY } from '../../src/model/targets.js';
import { trim } from '../../src/store/kinds.js';
import { MODEL_OPTIONS, ingress, ingressClass, service, slice } from '../support/objects.js';

const addresses = (snap: Snapshot, opts = MODEL_OPTIONS): Record<string, string[]> =>
  Object.fromEntries(buildModel(snap, opts).upstreams.map((u) => [u.name, u.endpoints.map((e) => `${e.address}:${e.port}`)]));

function cluster(): Snapshot {
  const path = (svc: string, port: number | string = 80) => ({ path: `/${svc}`, type: 'Prefix' as const, service: svc, port });
  const slices = [
    slice('sorted', 8080, ['10.0.0.1', '10.0.0.2', '10.0.0.3']),
    slice('unsorted', 8080, ['10.0.0.9', '10.0.0.1', '10.0.0.5', '10.0.0.1']),
    slice('draining', 8080, [
      { ip: '10.0.1.2', ready: false, serving: true },
      { ip: '10.0.1.1', ready: false, serving: true },
      { ip: '10.0.1.3', ready: false },
    ]),
    slice('mixed', 8080, [{ ip: '10.0.2.1', ready: false, serving: true }, '10.0.2.9', '10.0.2.4']),
    slice('loop', 80, ['127.0.0.1', '10.0.3.1']),
    // one slice, two port names: read once for each
    {
      ...slice('two', 8080, ['10.0.4.2', '10.0.4.1']),
      ports: [
        { name: 'http', port: 8080, protocol: 'TCP' },
        { name: 'admin', port: 9090, protocol: 'TCP' },
      ],
    },
  ];
  return {
    ...EMPTY_SNAPSHOT,
    ingresses: [
      ingress('a', { className: 'portico', host: 'a.test', paths: [path('sorted'), path('unsorted'), path('draining'), path('mixed'), path('loop'), path('two', 'http'), path('two', 'admin')] }),
    ],
    ingressClasses: [ingressClass('portico')],
    services: [
      ...['sorted', 'unsorted', 'draining', 'mixed', 'loop'].map((n) => service(n)),
      service('two', 'default', [
        { name: 'http', port: 80 },
        { name: 'admin', port: 81 },
      ]),
    ],
    endpointSlices: slices.map((s) => trim(s, 'EndpointSlice')),
  };
}

test('with the memo, again and under another target policy, every upstream has the endpoints it has without one', () => {
  const snap = cluster();
  const plain = addresses(snap);
  assert.deepEqual(plain, {
    default_draining_80: ['10.0.1.1:8080', '10.0.1.2:8080'],
    default_loop_80: ['10.0.3.1:80'],
    default_mixed_80: ['10.0.2.4:8080', '10.0.2.9:8080'],
    default_sorted_80: ['10.0.0.1:8080', '10.0.0.2:8080', '10.0.0.3:8080'],
    default_two_81: ['10.0.4.1:9090', '10.0.4.2:9090'],
    default_two_80: ['10.0.4.1:8080', '10.0.4.2:8080'],
    default_unsorted_80: ['10.0.0.1:8080', '10.0.0.5:8080', '10.0.0.9:8080'],
  });
  const memo = modelMemo();
  const withMemo = { ...MODEL_OPTIONS, memo };
  assert.deepEqual(addresses(snap, withMemo), plain, 'the first build with a memo');
  assert.deepEqual(addresses(snap, withMemo), plain, 'the next one, from the memo');
  // loopback allowed: the memo's entries were read under the strict policy and must not answer for this one
  const loose = { ...DEFAULT_TARGET_POLICY, ownPorts: [], allowLoopback: true };
  assert.deepEqual(addresses(snap, { ...withMemo, targets: loose }).default_loop_80, ['10.0.3.1:80', '127.0.0.1:80']);
  assert.deepEqual(addresses(snap, withMemo), plain, 'and back');
});
