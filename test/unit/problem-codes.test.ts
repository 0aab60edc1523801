// Every Problem's Event reason comes from the code the model gave it, not from its wording: a missing Service, a
// missing port, a path two Ingresses claim, another namespace's rule on an owned host (--strict-host-ownership), a
// missing TLS Secret and an invalid annotation each get the reason a user filters Events on (kubectl get events --field-selector reason=...).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildModel } from '../../src/model/build.js';
import { problemReason } from '../../src/model/problems.js';
import { EMPTY_SNAPSHOT, type Snapshot } from '../../src/model/input.js';
import { MODEL_OPTIONS, ingress, ingressClass, service, slice } from '../support/objects.js';

test('each kind of problem carries its Event reason as a code', () => {
  const withTls = ingress('tls', { className: 'portico', host: 'secure.test', paths: [{ path: '/', type: 'Prefix', service: 'web' }] });
  const snap: Snapshot = {
    ...EMPTY_SNAPSHOT,
    ingressClasses: [ingressClass('portico')],
    services: [service('web'), service('web', 'other')],
    endpointSlices: [slice('web', 8080, ['10.0.0.1']), slice('web', 8080, ['10.0.0.2'], { namespace: 'other' })],
    ingresses: [
      ingress('old', { className: 'portico', host: 'a.test', paths: [{ path: '/x', type: 'Prefix', service: 'web' }] }),
      ingress('late', { className: 'portico', host: 'a.test', created: '2026-02-01T00:00:00Z', paths: [{ path: '/x', type: 'Prefix', service: 'web' }] }),
      ingress('nosvc', { className: 'portico', host: 'b.test', paths: [{ path: '/', type: 'Prefix', service: 'missing' }] }),
      ingress('noport', { className: 'portico', host: 'c.test', paths: [{ path: '/', type: 'Prefix', service: 'web', port: 8080 }] }),
      ingress('intruder', { namespace: 'other', className: 'portico', host: 'a.test', created: '2026-03-01T00:00:00Z', paths: [{ path: '/y', type: 'Prefix', service: 'web' }] }),
      { ...withTls, spec: { ...withTls.spec, tls: [{ hosts: ['secure.test'], secretName: 'absent' }] } },
    ],
  };
  const model = buildModel(snap, { ...MODEL_OPTIONS, strictHostOwnership: true });
  const reasonOf = (name: string): string[] => model.problems.filter((p) => p.object.name === name).map(problemReason);
  assert.deepEqual(reasonOf('late'), ['PathConflict']);
  assert.deepEqual(reasonOf('nosvc'), ['ServiceNotFound']);
  assert.deepEqual(reasonOf('noport'), ['ServicePortNotFound']);
  assert.deepEqual(reasonOf('intruder'), ['HostConflict']);
  assert.deepEqual(reasonOf('tls'), ['SecretProblem']);
  assert.deepEqual(reasonOf('old'), []);
});

test('a problem without a code is InvalidAnnotation on an annotation, else Invalid or Degraded by severity', () => {
  const object = { kind: 'Ingress' as const, namespace: 'default', name: 'x' };
  assert.equal(problemReason({ object, field: 'metadata.annotations.proxy-body-size', reason: 'bad', severity: 'degraded' }), 'InvalidAnnotation');
  assert.equal(problemReason({ object, field: 'spec.rules[0].host', reason: 'bad', severity: 'dropped' }), 'Invalid');
  assert.equal(problemReason({ object, field: 'spec.rules[0].host', reason: 'bad', severity: 'degraded' }), 'Degraded');
});

test('a missing Service named by two paths and another Ingress is a problem on each, each naming its own path', () => {
  const snap: Snapshot = {
    ...EMPTY_SNAPSHOT,
    ingressClasses: [ingressClass('portico')],
    services: [service('web')],
    endpointSlices: [slice('web', 8080, ['10.0.0.1'])],
    ingresses: [
      ingress('two', {
        className: 'portico',
        host: 'two.test',
        paths: [
          { path: '/a', type: 'Prefix', service: 'gone' },
          { path: '/b', type: 'Exact', service: 'gone' },
          { path: '/c', type: 'Prefix', service: 'web' },
        ],
      }),
      ingress('three', { className: 'portico', host: 'three.test', paths: [{ path: '/', type: 'Prefix', service: 'gone' }] }),
    ],
  };
  const model = buildModel(snap, MODEL_OPTIONS);
  const missing = model.problems.filter((p) => problemReason(p) === 'ServiceNotFound').map((p) => `${p.object.name} ${p.field}`);
  assert.deepEqual(missing.sort(), ['three spec.rules[0].http.paths[0].backend', 'two spec.rules[0].http.paths[0].backend', 'two spec.rules[0].http.paths[1].backend']);
  assert.deepEqual(
    model.upstreams.map((u) => [u.name, u.endpoints.length]),
    [
      ['default_gone_80', 0],
      ['default_web_80', 1],
    ],
  );
});
