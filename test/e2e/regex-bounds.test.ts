// Bounded regexes, local mode, real nginx: nested quantifiers are refused per Ingress, the rest is served.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ingress } from '../support/objects.js';
import { manifestFolder, serviceFor, type ManifestDir } from '../support/manifests.js';
import { startBackend, type Backend } from '../support/backends.js';
import { get, startPortico, until, who, type Running } from '../support/portico.js';

const A = 'nginx.ingress.kubernetes.io';
const OLD = '2026-01-01T00:00:00Z';
const NEW = '2026-02-01T00:00:00Z';
const prefix = (path: string, service: string): { path: string; type: 'Prefix'; service: string } => ({ path, type: 'Prefix', service });
/** A path the refused pattern `/x/(a+)+$` would backtrack on: 2^30 ways to fail (PCRE2's limit would answer 500). */
const EVIL_URI = `/x/${'a'.repeat(30)}b`;

void describe('regular expressions from tenants are bounded (real nginx)', () => {
  let dir: ManifestDir;
  let portico: Running;
  let backends: Backend[] = [];

  before(async () => {
    dir = await manifestFolder();
    backends = await Promise.all(['good', 'evil', 'main', 'canary'].map((id) => startBackend(id)));
    const [good, evil, main, canary] = backends as [Backend, Backend, Backend, Backend];
    await dir.write('all.json', [
      ...serviceFor('good', [good]),
      ...serviceFor('evil', [evil]),
      ...serviceFor('main', [main]),
      ...serviceFor('canary', [canary]),
      ingress('good', { className: 'portico', created: OLD, host: 'regex.test', annotations: { [`${A}/use-regex`]: 'true' }, paths: [prefix('/api/v[0-9]+(/|$)(.*)', 'good')] }),
      ingress('evil', { className: 'portico', created: NEW, host: 'regex.test', annotations: { [`${A}/use-regex`]: 'true' }, paths: [prefix('/x/(a+)+$', 'evil')] }),
      ingress('app', { className: 'portico', created: OLD, host: 'canary.test', paths: [prefix('/', 'main')] }),
      ingress('app-canary', {
        className: 'portico',
        created: NEW,
        host: 'canary.test',
        paths: [prefix('/', 'canary')],
        annotations: { [`${A}/canary`]: 'true', [`${A}/canary-by-header`]: 'X-Canary', [`${A}/canary-by-header-pattern`]: '^(a|ab)*$' },
      }),
      ingress('beta', { className: 'portico', created: OLD, host: 'beta.test', paths: [prefix('/', 'main')] }),
      ingress('beta-canary', {
        className: 'portico',
        created: NEW,
        host: 'beta.test',
        paths: [prefix('/', 'canary')],
        annotations: { [`${A}/canary`]: 'true', [`${A}/canary-by-header`]: 'X-Canary', [`${A}/canary-by-header-pattern`]: '^(beta|canary)$' },
      }),
    ]);
    portico = await startPortico(['--manifests', dir.dir]);
    await until('the model served', async () => (await who(portico.http, 'regex.test', '/api/v2/x')) === 'good', 20_000);
  });

  after(async () => {
    await portico?.stop();
    await Promise.all(backends.map((b) => b.close()));
    await dir?.remove();
  });

  test('a use-regex path with a nested quantifier is refused with a Warning; the other Ingress on the host is served', async () => {
    const warning = portico.output.find((l) => l.includes('"level":40') && l.includes('default/evil') && l.includes('nested quantifier'));
    assert.ok(warning, `no Warning for default/evil:\n${portico.output.filter((l) => l.includes('evil')).join('\n')}`);
    assert.match(warning, /\(a\+\)\+/);
    assert.equal(await who(portico.http, 'regex.test', EVIL_URI), '404', 'the refused path is not a location: no backtracking, no 500');
    assert.equal(await who(portico.http, 'regex.test', '/x/aaa'), '404');
    assert.equal(await who(portico.http, 'regex.test', '/api/v2/items'), 'good');
    assert.equal(await who(portico.http, 'regex.test', '/API/V10'), 'good', 'use-regex paths match case-insensitively');
    assert.equal(await who(portico.http, 'regex.test', '/api/vx'), '404');
    assert.equal((await get(portico.healthz, 'localhost', '/healthz')).status, 200);
  });

  test('canary-by-header-pattern with overlapping alternatives under a repeat is refused; a plain pattern routes', async () => {
    assert.ok(
      portico.output.some((l) => l.includes('"level":40') && l.includes('app-canary') && l.includes('alternatives in')),
      'a Warning names the refused canary pattern',
    );
    for (const v of ['a', 'ab', 'abab', 'always']) {
      assert.equal((await get(portico.http, 'canary.test', '/', { headers: { 'x-canary': v } })).headers['x-backend'], 'main', `X-Canary: ${v}`);
    }
    assert.equal((await get(portico.http, 'beta.test', '/', { headers: { 'x-canary': 'beta' } })).headers['x-backend'], 'canary');
    assert.equal((await get(portico.http, 'beta.test', '/', { headers: { 'x-canary': 'betas' } })).headers['x-backend'], 'main');
    assert.equal((await get(portico.http, 'beta.test', '/')).headers['x-backend'], 'main');
  });

  test('nginx runs with PCRE JIT and a Lua match limit', async () => {
    const conf = await readFile(join(portico.workDir, 'nginx.conf'), 'utf8');
    assert.ok(conf.split('\n').includes('pcre_jit on;'));
    assert.ok(conf.split('\n').includes('    lua_regex_match_limit 100000;'));
  });
});
