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
