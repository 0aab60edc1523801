// Property-based: fast-check generates annotation values (every key of the table, valid-looking, hostile
// and random), one Ingress of another tenant on a shared host carries them, and real nginx serves the result
// through Portico. Whatever is generated: every sync ends (a marker Ingress written with it is served), the
// shared host's owner and another host keep being served, and /healthz stays 200. Bounded: a fixed seed, a fixed
// number of rounds, and a time limit.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ANNOTATIONS } from '../../src/annotations/table.js';
import { startBackend, type Backend } from '../support/backends.js';
import { backendObjects, manifestFolder, type ManifestDir } from '../support/manifests.js';
import { ingress } from '../support/objects.js';
import { get, startPortico, until, who, type Running } from '../support/portico.js';

const ROUNDS = Number(process.env['PORTICO_FUZZ_ROUNDS'] ?? 60);
const TIME_LIMIT_MS = 150_000;
const PREFIX = 'nginx.ingress.kubernetes.io';

/** Values that have broken nginx.conf or Lua before, and neighbours of every type's edges. */
const HOSTILE = [
  '',
  ' ',
  '0',
  '-1',
  '65535',
  '65536',
  '70000',
  '2147483648',
  '1e3',
  '0x10',
  '499',
  '599',
  '600',
  'true',
  'false',
  'TRUE',
  ';',
  '}',
  '{',
  '"',
  "'",
  '\\',
  '$host',
  '${host}',
  '#',
  '\n',
  'a\nb',
  '\r\n',
  '\t',
  '\u0000',
  'ä',
  '😀',
  'a;b',
  '/a;b',
  'x}; location / { return 200; } #',
  '"; }',
  '$(id)',
  '`id`',
  '\\u0041',
  '(a+)+',
  '.*',
  '/.*',
  '^/',
  '[]',
  'http://127.0.0.1:10246$request_uri',
  'http://169.254.169.254/',
  'http://localhost/',
  'https://a.example, https://a.example',
  '::ffff:1.2.3.4/128',
  '0000:0000:0000:0000:0000:ffff:192.168.100.200/128',
  'fe80::1%eth0/64',
  '10.0.0.0/33',
  '0.0.0.0/0',
  'default/secret',
  '../x',
  'x'.repeat(300),
  '/'.repeat(5000),
  'a,'.repeat(100),
  '1m',
  '10s',
  '100000000000s',
  'cookie',
];

/** One value for `key`: its documented default, a hostile one, or a random string. */
const valueArb = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...HOSTILE) },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.stringMatching(/^[0-9a-z$;{}"' /.:,*()-]{0,30}$/) },
);
const keys = ANNOTATIONS.filter((a) => !a.snippet).map((a) => a.key);
const annotationsArb = fc.dictionary(fc.constantFrom(...keys), fc.oneof(valueArb, fc.constantFrom(...ANNOTATIONS.map((a) => a.default))), { minKeys: 1, maxKeys: 5 });

describe('generated annotation values never stop a sync, another tenant, or /healthz (real nginx)', () => {
  let victim: Backend;
  let dir: ManifestDir;
  let portico: Running;

  before(async () => {
    victim = await startBackend('victim');
    dir = await manifestFolder();
    await dir.write('victims.json', [
      ...backendObjects('victim', victim.port),
      ...backendObjects('victim', victim.port, 'fuzz'),
      ingress('owner', { className: 'portico', host: 'shared.test', paths: [{ path: '/', type: 'Prefix', service: 'victim' }] }),
      ingress('elsewhere', { className: 'portico', host: 'other.test', paths: [{ path: '/', type: 'Prefix', service: 'victim' }] }),
    ]);
    portico = await startPortico(['--manifests', dir.dir, '--annotations-risk-level', 'Critical']);
    await until('victims served', async () => (await who(portico.http, 'shared.test', '/')) === 'victim');
  });

  after(async () => {
    await portico?.stop();
    await victim?.close();
    await dir?.remove();
  });

  test(`${ROUNDS} rounds of generated annotations on a shared host`, async () => {
    const samples = fc.sample(annotationsArb, { numRuns: ROUNDS, seed: 1974 });
    const started = Date.now();
    let round = 0;
    for (const annotations of samples) {
      if (Date.now() - started > TIME_LIMIT_MS) break;
      round += 1;
      const full = Object.fromEntries(Object.entries(annotations).map(([k, v]) => [`${PREFIX}/${k}`, v]));
      const what = JSON.stringify(annotations).slice(0, 300);
      await dir.write('fuzz.json', [
        ingress('fuzzed', { namespace: 'fuzz', className: 'portico', host: 'shared.test', annotations: full, paths: [{ path: '/fuzz', type: 'Prefix', service: 'victim' }] }),
        ingress(`marker-${round}`, { namespace: 'fuzz', className: 'portico', host: `m${round}.test`, paths: [{ path: '/', type: 'Prefix', service: 'victim' }] }),
      ]);
      // The sync that carries the generated values ended and applied: the marker written beside them is served.
      await until(`round ${round} applied (${what})`, async () => (await who(portico.http, `m${round}.test`, '/')) === 'victim', 15_000);
      assert.equal(await who(portico.http, 'shared.test', '/'), 'victim', `round ${round}: the shared host's owner (${what})`);
      assert.equal(await who(portico.http, 'other.test', '/'), 'victim', `round ${round}: another host (${what})`);
      const tail = portico.output
        .filter((l) => !l.includes('"nginx":'))
        .slice(-8)
        .join('\n');
      assert.equal((await get(portico.healthz, 'localhost', '/healthz')).status, 200, `round ${round}: /healthz (${what})\n${tail}`);
    }
    assert.ok(round >= Math.min(ROUNDS, 20), `${round} rounds ran within the time limit`);
    // What slipped past the model into nginx -t is caught per Ingress; it is reported here so the model can learn it.
    const refused = portico.output.filter((l) => l.includes('was refused; leaving it out'));
    if (refused.length > 0) console.log(`# ${refused.length} refusals caught by the quarantine (model gaps):\n${refused.slice(0, 5).join('\n')}`);
  });
});
