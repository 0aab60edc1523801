// The endpoint fast path gives exactly what a full build gives when only EndpointSlices changed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildModel } from '../../src/model/build.js';
import { refreshEndpoints } from '../../src/model/refresh.js';
import { ingress, ingressClass, service, slice } from '../support/objects.js';
import type { ModelOptions, Snapshot } from '../../src/model/input.js';

const FIXTURE_MODEL_OPTIONS: ModelOptions = {
  controllerClass: 'portico.dev/ingress-controller',
  ingressClass: 'portico',
  watchIngressWithoutClass: false,
  defaultBackendService: undefined,
  loadBalance: 'round_robin',
};

function snapshot(slices: Snapshot['endpointSlices']): Snapshot {
  return {
    ingresses: [
      ingress('a', {
        className: 'portico',
        host: 'a.test',
        paths: [
          { path: '/', type: 'Prefix', service: 'web' },
          { path: '/admin', type: 'Prefix', service: 'web', port: 'admin' },
        ],
      }),
      ingress('b', { className: 'portico', host: 'b.test', paths: [{ path: '/', type: 'Prefix', service: 'ghost' }] }),
    ],
    ingressClasses: [ingressClass('portico')],
    services: [
      service('web', 'default', [
        { name: 'http', port: 80 },
        { name: 'admin', port: 9000 },
      ]),
    ],
    endpointSlices: slices,
    secrets: [],
    configMaps: [],
  };
}

test('refreshEndpoints equals a full build after EndpointSlice churn (added, removed, not ready, terminating)', () => {
  const before = snapshot([slice('web', 8080, ['10.0.0.1', '10.0.0.2'], { name: 'web-a' })]);
  const model = buildModel(before, FIXTURE_MODEL_OPTIONS);
  const variants: Snapshot['endpointSlices'][] = [
    [slice('web', 8080, ['10.0.0.3'], { name: 'web-a' }), slice('web', 9090, ['10.0.0.3'], { name: 'web-admin', portName: 'admin' })],
    [slice('web', 8080, [{ ip: '10.0.0.1', ready: false, serving: true, terminating: true }], { name: 'web-a' })],
    [slice('web', 8080, [{ ip: '10.0.0.1', ready: false }], { name: 'web-a' })],
    [],
  ];
  for (const slices of variants) {
    const after = snapshot(slices);
    assert.deepEqual(refreshEndpoints(model, after), buildModel(after, FIXTURE_MODEL_OPTIONS));
  }
});

test('with `since`, only the Services whose slices changed are read again: equal to a full build, the other upstreams kept as they were', () => {
  const base = (slices: Snapshot['endpointSlices']): Snapshot => {
    const s = snapshot(slices);
    return {
      ...s,
      ingresses: [...s.ingresses, ingress('c', { className: 'portico', host: 'c.test', paths: [{ path: '/', type: 'Prefix', service: 'other' }] })],
      services: [...s.services, service('other')],
    };
  };
  // 127.0.0.1 is refused by the default target policy: a Problem on the slice, kept while that slice is unchanged
  const other = slice('other', 8080, ['10.0.1.1', '127.0.0.1'], { name: 'other-a' });
  const first = base([slice('web', 8080, ['10.0.0.1'], { name: 'web-a' }), other]);
  let model = buildModel(first, FIXTURE_MODEL_OPTIONS);
  let since = first;
  const otherUpstream = model.upstreams.find((u) => u.service.name === 'other');
  assert.ok(otherUpstream);
  for (const web of [['10.0.0.2'], ['10.0.0.2', '127.0.0.1'], []]) {
    const next = base([...(web.length > 0 ? [slice('web', 8080, web, { name: 'web-a' })] : []), other]);
    model = refreshEndpoints(model, next, undefined, undefined, since);
    since = next;
    assert.deepEqual(model, buildModel(next, FIXTURE_MODEL_OPTIONS), JSON.stringify(web));
    assert.equal(
      model.upstreams.find((u) => u.service.name === 'other'),
      otherUpstream,
      'the unchanged Service keeps its upstream object',
    );
  }
  assert.ok(
    model.problems.some((p) => p.object.name === 'other-a'),
    'the unchanged slice keeps its refused-endpoint Problem',
  );
  assert.equal(refreshEndpoints(model, since, undefined, undefined, since), model, 'nothing changed: the same model');
});
