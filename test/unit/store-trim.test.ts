// What the store keeps of an EndpointSlice: addresses and conditions only (packed, src/model/packed-endpoints.ts), each
// distinct set of conditions one shared frozen object as read back, read by the model exactly as the slice said.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { packSlice, trim, wireText } from '../../src/store/kinds.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { endpointList, type StoredEndpointSlice } from '../../src/model/packed-endpoints.js';
import { ingress, slice } from '../support/objects.js';

const endpointsOf = (s: StoredEndpointSlice): readonly { readonly addresses?: readonly string[]; readonly conditions?: object }[] => endpointList(s);

test('equal conditions are one shared frozen object; different ones stay apart', () => {
  const a = trim(
    slice(
      'a',
      80,
      [
        { ip: '10.0.0.1', ready: true },
        { ip: '10.0.0.2', ready: false },
      ],
      { name: 'a-1' },
    ),
    'EndpointSlice',
  );
  const b = trim(slice('b', 80, [{ ip: '10.0.0.3', ready: true }], { name: 'b-1' }), 'EndpointSlice');
  const [a1, a2] = endpointsOf(a);
  const [b1] = endpointsOf(b);
  assert.equal(a1?.conditions, b1?.conditions);
  assert.notEqual(a1?.conditions, a2?.conditions);
  assert.deepEqual(a1?.conditions, { ready: true });
  assert.deepEqual(a2?.conditions, { ready: false });
  assert.ok(Object.isFrozen(a1?.conditions));
  assert.deepEqual(a1?.addresses, ['10.0.0.1']);
});

test('conditions in another order share the object; conditions that are not three booleans are kept as they came', () => {
  const raw = (conditions: unknown): EndpointSlice =>
    ({ ...slice('c', 80, ['10.0.0.9'], { name: 'c-1' }), endpoints: [{ addresses: ['10.0.0.9'], conditions, targetRef: { kind: 'Pod', name: 'p' } }] }) as EndpointSlice;
  const x = endpointsOf(trim(raw({ ready: true, serving: true }), 'EndpointSlice'))[0];
  const y = endpointsOf(trim(raw({ serving: true, ready: true }), 'EndpointSlice'))[0];
  assert.equal(x?.conditions, y?.conditions);
  assert.deepEqual(Object.keys(x ?? {}), ['addresses', 'conditions'], 'targetRef is dropped at the door');
  const odd = { ready: 'yes' };
  assert.deepEqual(endpointsOf(trim(raw(odd), 'EndpointSlice'))[0]?.conditions, odd);
});

test('managedFields, ownerReferences and the last-applied annotation are dropped, everything else kept in order', () => {
  const base = ingress('a', { host: 'a.test', paths: [{ path: '/', type: 'Prefix', service: 'a' }] });
  const meta = {
    ...base.metadata,
    uid: 'u1',
    managedFields: [{ manager: 'kubectl', operation: 'Update' }],
    ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'x', uid: 'u0' }],
    annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}', 'nginx.ingress.kubernetes.io/ssl-redirect': 'false' },
    resourceVersion: '7',
  };
  const stored = trim({ ...base, metadata: meta }, 'Ingress');
  assert.deepEqual(stored.metadata, { ...base.metadata, uid: 'u1', annotations: { 'nginx.ingress.kubernetes.io/ssl-redirect': 'false' }, resourceVersion: '7' });
  assert.deepEqual(Object.keys(stored.metadata ?? {}), ['name', 'namespace', 'creationTimestamp', 'uid', 'annotations', 'resourceVersion']);
  assert.deepEqual(stored.spec, base.spec);
  assert.ok(Object.isFrozen(stored.metadata?.annotations));
  // the caller's object is left as it came
  assert.equal(meta.annotations['kubectl.kubernetes.io/last-applied-configuration'], '{}');
});

test('a stored object is a JSON copy of the trimmed one, and crosses to a worker as the text it was parsed from, once', () => {
  const base = ingress('t', { host: 't.test', paths: [{ path: '/', type: 'Prefix', service: 't' }] });
  const input = { ...base, metadata: { ...base.metadata, labels: { team: 'a' }, uid: undefined } };
  const stored = trim(input, 'Ingress');
  assert.notEqual(stored.metadata?.labels, input.metadata.labels, 'nothing of the caller is shared');
  assert.equal('uid' in (stored.metadata ?? {}), false, 'an undefined field is absent, as JSON has it');
  const text = wireText(stored);
  assert.deepEqual(JSON.parse(text), stored);
  // Taken once; later crossings (a new worker) stringify the object again, to the same text.
  assert.equal(wireText(stored), text);
  const parsed: unknown = JSON.parse(text);
  packSlice(parsed);
  assert.deepEqual(parsed, stored);
});

test('a one-shot store (`portico render`) keeps a just-parsed object as it is, and still drops what the model never reads', () => {
  const base = ingress('o', { host: 'o.test', paths: [{ path: '/', type: 'Prefix', service: 'o' }] });
  assert.equal(trim(base, 'Ingress', 'one-shot'), base, 'nothing to drop: the very object, not a copy');
  const meta = { ...base.metadata, managedFields: [{ manager: 'kubectl' }], annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}', a: 'b' } };
  const stored = trim({ ...base, metadata: meta }, 'Ingress', 'one-shot');
  assert.deepEqual(stored.metadata, { ...base.metadata, annotations: { a: 'b' } });
  const plain = slice('p', 80, ['10.0.0.1'], { name: 'p-1' });
  assert.equal(trim(plain, 'EndpointSlice', 'one-shot'), plain);
  const rich = { ...plain, endpoints: [{ addresses: ['10.0.0.1'], conditions: { ready: true }, nodeName: 'n1', targetRef: { kind: 'Pod', name: 'p' } }] } as EndpointSlice;
  assert.deepEqual(endpointsOf(trim(rich, 'EndpointSlice', 'one-shot')), [{ addresses: ['10.0.0.1'], conditions: { ready: true } }]);
  assert.equal(rich.endpoints?.[0] && 'nodeName' in rich.endpoints[0], true, "the caller's slice is left as it came");
});
