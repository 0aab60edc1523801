// ExternalName Services in the model (docs/adr/0019): the port a backend reference gives, the resolved addresses as
// endpoints through the target policy, the Warnings on the Service; and the resolver that feeds the answers in.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { buildModel } from '../../src/model/build.js';
import { refreshEndpoints } from '../../src/model/refresh.js';
import { checkExternalName, externalPort } from '../../src/model/external-names.js';
import { problemReason } from '../../src/model/problems.js';
import { EMPTY_SNAPSHOT, type ResolvedName, type Service, type Snapshot } from '../../src/model/input.js';
import type { Model } from '../../src/model/types.js';
import { ExternalNameResolver } from '../../src/sources/external-names.js';
import { MODEL_OPTIONS, ingress, ingressClass, slice } from '../support/objects.js';

const IN_POD = { ownPorts: [80, 443, 10246, 10254], allowLoopback: false, allowCidrs: [] };
const LOCAL = { ...IN_POD, allowLoopback: true };

function external(name: string, target: string, ports?: { name: string; port: number; targetPort?: number | string }[]): Service {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default' }, spec: { type: 'ExternalName', externalName: target, ...(ports ? { ports } : {}) } };
}

function snap(services: Service[], names: ResolvedName[], port: number | string = 80): Snapshot {
  return {
    ...EMPTY_SNAPSHOT,
    ingressClasses: [ingressClass('portico')],
    services,
    ingresses: services.map((s) =>
      ingress(s.metadata?.name ?? '', { className: 'portico', host: `${s.metadata?.name ?? ''}.test`, paths: [{ path: '/', type: 'Prefix', service: s.metadata?.name ?? '', port }] }),
    ),
    externalNames: names,
  };
}

const endpointsOf = (m: Model, service: string) => m.upstreams.find((u) => u.service.name === service)?.endpoints;

test('the port: a declared port gives its numeric targetPort, else its port; an undeclared number is used; an undeclared name gives 80', () => {
  const svc = external('x', 'db.example', [
    { name: 'sql', port: 5432, targetPort: 15432 },
    { name: 'web', port: 8080, targetPort: 'http' },
  ]);
  assert.equal(externalPort(svc, { portNumber: 5432, portName: undefined }), 15432);
  assert.equal(externalPort(svc, { portNumber: undefined, portName: 'sql' }), 15432);
  assert.equal(externalPort(svc, { portNumber: undefined, portName: 'web' }), 8080);
  assert.equal(externalPort(svc, { portNumber: 9000, portName: undefined }), 9000);
  assert.equal(externalPort(svc, { portNumber: undefined, portName: 'other' }), 80);
});

test('names: DNS names with or without the trailing dot and IP addresses pass; anything else is refused', () => {
  for (const ok of ['db', 'db.example.com', 'db.example.com.', '10.0.0.1', '2001:db8::1']) assert.equal(checkExternalName(ok), undefined, ok);
  for (const bad of ['', '.', 'db..example', 'DB.example', 'db_1.example', 'a b', 'x'.repeat(254), 'db.example.com..']) assert.notEqual(checkExternalName(bad), undefined, bad);
});

test('every resolved address at the port is an endpoint, sorted; the upstream names its ExternalName', () => {
  const m = buildModel(
    snap([external('db', 'db.example', [{ name: 'sql', port: 80, targetPort: 5432 }])], [{ name: 'db.example', addresses: ['10.0.0.9', '10.0.0.2', '2001:db8::1'] }]),
    MODEL_OPTIONS,
  );
  assert.deepEqual(endpointsOf(m, 'db'), [
    { address: '10.0.0.2', port: 5432 },
    { address: '10.0.0.9', port: 5432 },
    { address: '2001:db8::1', port: 5432 },
  ]);
  assert.equal(m.upstreams[0]?.externalName, 'db.example');
  assert.deepEqual(m.problems, []);
});

test('the target policy applies to what the name resolves to: loopback in a pod, link-local, Portico own ports', () => {
  const names = [
    { name: 'localhost', addresses: ['127.0.0.1', '::1'] },
    { name: 'metadata.internal', addresses: ['169.254.169.254'] },
    { name: 'mixed.example', addresses: ['10.1.1.1', '127.0.0.1'] },
  ];
  const services = [external('lo', 'localhost'), external('meta', 'metadata.internal'), external('mixed', 'mixed.example')];
  const inPod = buildModel(snap(services, names), { ...MODEL_OPTIONS, targets: IN_POD });
  assert.deepEqual(endpointsOf(inPod, 'lo'), []);
  assert.deepEqual(endpointsOf(inPod, 'meta'), []);
  assert.deepEqual(endpointsOf(inPod, 'mixed'), [{ address: '10.1.1.1', port: 80 }]);
  const warned = inPod.problems.filter((p) => p.object.kind === 'Service').map((p) => `${p.object.name} ${p.field}`);
  assert.deepEqual(warned, ['lo spec.externalName', 'lo spec.externalName', 'meta spec.externalName', 'mixed spec.externalName']);
  // Local mode allows loopback, never on Portico's own ports (80 here).
  const local = buildModel(snap([external('lo', 'localhost')], names, 8080), { ...MODEL_OPTIONS, targets: LOCAL });
  assert.deepEqual(endpointsOf(local, 'lo'), [
    { address: '::1', port: 8080 },
    { address: '127.0.0.1', port: 8080 },
  ]);
  const own = buildModel(snap([external('lo', 'localhost')], names, 10246), { ...MODEL_OPTIONS, targets: LOCAL });
  assert.deepEqual(endpointsOf(own, 'lo'), []);
  assert.match(own.problems[0]?.reason ?? '', /Portico's own ports/);
});

test('an unresolvable name: no endpoint and a Warning on the Service (ExternalNameUnresolved); not resolved yet: no Warning', () => {
  const m = buildModel(snap([external('gone', 'invalid.hostname'), external('later', 'later.example')], [{ name: 'invalid.hostname', addresses: [], error: 'ENOTFOUND' }]), MODEL_OPTIONS);
  assert.deepEqual(endpointsOf(m, 'gone'), []);
  assert.deepEqual(endpointsOf(m, 'later'), []);
  assert.deepEqual(
    m.problems.map((p) => [p.object.kind, p.object.name, p.field, problemReason(p)]),
    [['Service', 'gone', 'spec.externalName', 'ExternalNameUnresolved']],
  );
  assert.match(m.problems[0]?.reason ?? '', /"invalid\.hostname" does not resolve \(ENOTFOUND\)/);
});

test('--disable-svc-external-name: no endpoint, a Warning on the Service; a Service with EndpointSlices is untouched', () => {
  const s = snap([external('db', '10.0.0.5')], [{ name: '10.0.0.5', addresses: ['10.0.0.5'] }]);
  const m = buildModel(s, { ...MODEL_OPTIONS, disableExternalNames: true });
  assert.deepEqual(endpointsOf(m, 'db'), []);
  assert.deepEqual(
    m.problems.map((p) => `${p.object.kind} ${p.object.name} ${p.field}`),
    ['Service db spec.type'],
  );
  assert.deepEqual(endpointsOf(buildModel(s, MODEL_OPTIONS), 'db'), [{ address: '10.0.0.5', port: 80 }]);
});

test('the endpoint fast path keeps an ExternalName upstream as the build made it', () => {
  const s = snap([external('db', 'db.example')], [{ name: 'db.example', addresses: ['10.0.0.2'] }]);
  const m = buildModel(s, MODEL_OPTIONS);
  const after = refreshEndpoints(m, { ...s, endpointSlices: [slice('db', 9999, ['10.9.9.9'])] }, undefined, undefined, s);
  assert.deepEqual(endpointsOf(after, 'db'), [{ address: '10.0.0.2', port: 80 }]);
});

const quiet = pino({ level: 'silent' });

test('the resolver: the system answers localhost, a complete name falls back to the hosts file, an unknown name is an error', async () => {
  let changes = 0;
  const r = new ExternalNameResolver({
    refreshMs: 60_000,
    log: quiet,
    changed: () => {
      changes += 1;
    },
  });
  try {
    r.want(['localhost', 'localhost.', 'no-such-name.invalid.']);
    await r.settled(10_000);
    const byName = new Map(r.current().map((a) => [a.name, a]));
    assert.ok(byName.get('localhost')?.addresses.includes('127.0.0.1'));
    assert.deepEqual(byName.get('localhost.')?.addresses, byName.get('localhost')?.addresses);
    assert.equal(byName.get('no-such-name.invalid.')?.addresses.length, 0);
    assert.ok(byName.get('no-such-name.invalid.')?.error);
    assert.equal(changes, 3);
    // A name no longer used is forgotten.
    r.want(['localhost']);
    assert.deepEqual(
      r.current().map((a) => a.name),
      ['localhost'],
    );
  } finally {
    r.stop();
  }
});

test('the resolver re-resolves on its interval; a failure that is no answer keeps the last addresses, NXDOMAIN drops them', async () => {
  // A stand-in for DNS whose answers the test sets: the queue, its bound and the timer are the resolver's own.
  const answers: (string[] | string)[] = [['10.0.0.1'], ['10.0.0.2', '10.0.0.1'], 'EAI_AGAIN', 'ENOTFOUND'];
  let calls = 0;
  let running = 0;
  let most = 0;
  const seen: string[] = [];
  const r: ExternalNameResolver = new ExternalNameResolver({
    refreshMs: 30,
    log: quiet,
    changed: () => {
      const now = r.current().find((a) => a.name === 'db.example');
      const text = now ? (now.error ?? now.addresses.join(',')) : '';
      if (now && seen.at(-1) !== text) seen.push(text);
    },
    lookup: async (name) => {
      running += 1;
      most = Math.max(most, running);
      await new Promise((res) => setTimeout(res, 5));
      running -= 1;
      if (name !== 'db.example') return ['10.9.9.9'];
      const a = answers[Math.min(calls++, answers.length - 1)] ?? [];
      if (typeof a === 'string') throw Object.assign(new Error(a), { code: a });
      return a;
    },
  });
  try {
    r.want(['db.example', 'a.example', 'b.example', 'c.example']);
    const deadline = Date.now() + 10_000;
    for (let i = 0; i < 1000 && Date.now() < deadline && seen.at(-1) !== 'ENOTFOUND'; i++) await new Promise((res) => setTimeout(res, 10));
    assert.deepEqual(seen, ['10.0.0.1', '10.0.0.1,10.0.0.2', 'ENOTFOUND']);
    assert.ok(most <= 2, `at most 2 lookups at once, saw ${String(most)}`);
  } finally {
    r.stop();
  }
});

test('a sync waits for names without an answer, never for the refresh of an answered one', async () => {
  let calls = 0;
  let released = false;
  let release: () => void = () => undefined;
  const r = new ExternalNameResolver({
    refreshMs: 20,
    log: quiet,
    changed: () => undefined,
    lookup: async () => {
      calls += 1;
      // The first lookup answers; the refresh after it hangs until the test lets it go.
      if (calls > 1) await new Promise<void>((res) => (release = res));
      return ['10.0.0.1'];
    },
  });
  const letGo = setTimeout(() => {
    released = true;
    release();
  }, 3000);
  try {
    r.want(['db.example']);
    await r.settled(10_000);
    assert.equal(r.current()[0]?.addresses[0], '10.0.0.1');
    for (let i = 0; i < 500 && calls < 2; i++) await new Promise((res) => setTimeout(res, 10));
    assert.equal(calls, 2, 'the refresh started');
    await r.settled(10_000);
    assert.equal(released, false, 'settled() returned while the refresh was still under way');
  } finally {
    clearTimeout(letGo);
    release();
    r.stop();
  }
});
