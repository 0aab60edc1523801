// Host ownership: regex literal prefixes, the webhook refusing what strict mode refuses, and the guard's cost at scale.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { literalPrefix } from '../../src/model/regex-capture.js';
import { buildModel } from '../../src/model/build.js';
import { admissionChecker } from '../../src/pipeline/build.js';
import { parseFlags } from '../../src/config/flags.js';
import { createLogger } from '../../src/log.js';
import { admitIngress } from '../../src/webhook/review.js';
import { EMPTY_SNAPSHOT, type Ingress, type ModelOptions, type Snapshot } from '../../src/model/input.js';
import type { IngressSettings } from '../../src/model/settings.js';
import { ingress, ingressClass, service } from '../support/objects.js';

const OPTS: ModelOptions = {
  controllerClass: 'portico.dev/ingress-controller',
  ingressClass: 'portico',
  watchIngressWithoutClass: false,
  defaultBackendService: undefined,
  loadBalance: 'round_robin',
};

test('literal prefix: up to the first metacharacter, less an optional character; a top-level | gives nothing', () => {
  const cases: [string, string][] = [
    ['/.*', '/'],
    ['/svc-a(/|$)(.*)', '/svc-a'],
    ['/API/v1', '/api/v1'],
    ['/ab?c', '/a'],
    ['/ab*', '/a'],
    ['/ab{2}', '/a'],
    ['/ab+', '/ab'],
    ['/a\\.b', '/a'],
    ['/x|/y', ''],
    ['/(x|y)', '/'],
    ['/[|]x', '/'],
    ['/plain', '/plain'],
  ];
  for (const [re, want] of cases) assert.equal(literalPrefix(re), want, re);
});

test('the admission webhook refuses, with --strict-host-ownership, a rule on a host another namespace owns', () => {
  const log = createLogger(
    'silent',
    new Writable({
      write(_c: Buffer, _e, cb) {
        cb();
      },
    }),
  );
  const owner = ingress('owner', { namespace: 'a', className: 'portico', created: '2026-01-01T00:00:00Z', host: 'owned.test', paths: [{ path: '/', type: 'Prefix', service: 's' }] });
  const snap: Snapshot = { ...EMPTY_SNAPSHOT, ingressClasses: [ingressClass('portico')], services: [service('s', 'a'), service('s', 'b')], ingresses: [owner] };
  const candidate = ingress('two', {
    namespace: 'b',
    className: 'portico',
    created: '2026-02-01T00:00:00Z',
    rules: [
      { host: 'owned.test', paths: [{ path: '/evil', type: 'Prefix', service: 's' }] },
      { host: 'mine.test', paths: [{ path: '/', type: 'Prefix', service: 's' }] },
    ],
  });
  const strict = admitIngress(candidate, snap, admissionChecker(parseFlags(['--manifests', '/tmp', '--strict-host-ownership'], {}), log));
  assert.equal(strict.allowed, false);
  assert.match(strict.allowed ? '' : strict.message, /^Ingress b\/two spec\.rules\[0\]\.host: another Ingress has this host: owned\.test belongs to namespace a/);
  const open = admitIngress(candidate, snap, admissionChecker(parseFlags(['--manifests', '/tmp'], {}), log));
  assert.equal(open.allowed, true, 'without the flag, paths of one host merge across namespaces');
});

test('the regex guard on one host with 20,000 paths and 2,000 regexes of other namespaces (printed, not asserted)', () => {
  const ingresses: Ingress[] = [];
  const settings = new Map<string, IngressSettings>();
  for (let i = 0; i < 200; i++) {
    const ns = `ns${i}`;
    const paths = Array.from({ length: 100 }, (_, j) => ({ path: `/t${i}/p${j}`, type: 'Prefix' as const, service: 's' }));
    ingresses.push(ingress(`plain${i}`, { namespace: ns, className: 'portico', created: `2026-01-01T00:00:${String(i % 60).padStart(2, '0')}Z`, host: 'big.test', paths }));
    const regex = Array.from({ length: 10 }, (_, j) => ({ path: `/r${i}-${j}(/|$)(.*)`, type: 'Prefix' as const, service: 's' }));
    ingresses.push(ingress(`regex${i}`, { namespace: ns, className: 'portico', created: '2026-03-01T00:00:00Z', host: 'big.test', paths: regex }));
    settings.set(`${ns}/regex${i}`, { location: { useRegex: true }, server: {} });
  }
  const snap: Snapshot = { ...EMPTY_SNAPSHOT, ingressClasses: [ingressClass('portico')], ingresses, services: ingresses.map((i) => service('s', i.metadata?.namespace)) };
  const start = process.hrtime.bigint();
  const model = buildModel(snap, OPTS, { settings, strictPaths: true });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const t0 = process.hrtime.bigint();
  buildModel({ ...snap, ingresses: ingresses.filter((i) => i.metadata?.name?.startsWith('plain')) }, OPTS, { settings, strictPaths: true });
  const plainMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const regexes = model.servers.find((s) => s.host === 'big.test')?.locations.filter((l) => l.match === 'regex').length;
  assert.equal(regexes, 2000, 'no regex overlaps another namespace: all are served');
  process.stdout.write(`# 20,000 paths + 2,000 regexes on one host: model in ${ms.toFixed(0)} ms (the plain paths alone: ${plainMs.toFixed(0)} ms)\n`);
});
