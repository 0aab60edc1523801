// The docs are checked against the code where they can be. Every sentence (or table row) of docs/*.md that
// says something is not supported, not implemented, or absent ("no stream section") must name an annotation,
// ConfigMap key or flag that the code really refuses: its own compatibility check refuses a value asking for it.
// Otherwise the docs contradict the code (install.md once said TCP/UDP were not supported while they served).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compatVerdict, COMPAT_ANNOTATION_BY_KEY } from '../../src/annotations/table-without-setting.js';
import { parseConfigMap } from '../../src/annotations/configmap.js';
import { asksForRefused, COMPAT_FLAGS } from '../../src/config/flags-without-setting.js';
import { REPO } from '../support/portico.js';

const DOCS = join(REPO, 'docs');
/**
 * gateway-api.md states its refusals in Gateway API terms (fields, filters, status reasons), not as annotation,
 * ConfigMap or flag names; the Gateway tests (test/e2e/gateway*.test.ts, test/kube/gateway-*.test.ts) check those.
 */
const OTHER_VOCABULARY = new Set(['gateway-api.md']);
const CLAIM = /\bnot (yet )?(supported|implemented)\b|\bunsupported\b|\bno stream section\b/i;
/** Values that ask for a feature, tried in turn: a refusal for any of them is a refusal. */
const ASKING = ['true', 'on', '1', 'example.com', 'x'];

/** Whether the code refuses what `name` (an annotation, ConfigMap key or flag, as written in the docs) asks for. */
function refused(raw: string): boolean {
  const name = raw
    .replace(/^nginx\.ingress\.kubernetes\.io\//, '')
    .replace(/^--?/, '')
    .split(/[=: ]/)[0];
  if (name === undefined || name === '') return false;
  if (COMPAT_ANNOTATION_BY_KEY.get(name)?.status === 'refused' && ASKING.some((v) => compatVerdict(name, v).error !== undefined)) return true;
  if (ASKING.some((v) => parseConfigMap({ [name]: v }).refused.some((r) => r.key === name))) return true;
  const flag = COMPAT_FLAGS[name];
  return flag !== undefined && [true, ...ASKING].some((v) => asksForRefused(flag, v));
}

/** The units a claim is judged in: each table row, each sentence of prose (fenced code and headings left out). */
function units(text: string): string[] {
  const out: string[] = [];
  let prose: string[] = [];
  let fenced = false;
  const flush = (): void => {
    out.push(...prose.join(' ').split(/(?<=\.)\s+(?=[A-Z`(*])/));
    prose = [];
  };
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    if (fenced || line.startsWith('```') || line.startsWith('#')) {
      flush();
      continue;
    }
    if (line.startsWith('|')) {
      flush();
      out.push(line);
    } else if (line.trim() === '' || /^\s*([-*]|\d+\.) /.test(line)) {
      flush();
      if (line.trim() !== '') prose.push(line.trim());
    } else {
      prose.push(line.trim());
    }
  }
  flush();
  return out.filter((u) => u.trim() !== '');
}

/** The names a unit gives: `code` spans, and a table row's first cell. */
function names(unit: string): string[] {
  const spans = [...unit.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? '');
  return spans.flatMap((s) => s.split(/,\s*/));
}

void test('every "not supported" / "not implemented" sentence of docs/*.md names something the code refuses', () => {
  const wrong: string[] = [];
  let claims = 0;
  for (const file of readdirSync(DOCS).filter((f) => f.endsWith('.md') && !OTHER_VOCABULARY.has(f))) {
    for (const unit of units(readFileSync(join(DOCS, file), 'utf8'))) {
      if (!CLAIM.test(unit)) continue;
      claims += 1;
      if (!names(unit).some(refused)) wrong.push(`${file}: ${unit.slice(0, 200)}`);
    }
  }
  assert.ok(claims >= 5, `the check found the docs' claims (${claims})`);
  assert.deepEqual(wrong, [], 'these say something is not supported, but name nothing the code refuses');
});

void test('the check itself: it knows a refusal from a feature that works', () => {
  assert.equal(refused('session-cookie-domain'), true, 'a refused annotation');
  assert.equal(refused('enable-ocsp'), true, 'a refused ConfigMap key');
  assert.equal(refused('--enable-topology-aware-routing'), true, 'a refused flag');
  assert.equal(refused('--tcp-services-configmap'), false, 'TCP services work');
  assert.equal(refused('http-access-log-path'), false, 'a key Portico reads');
  assert.equal(refused('whitelist-source-range'), false, 'an annotation Portico reads');
  assert.deepEqual(units('a. B `x` is not supported.\n\n| `y` | refused |\n```\nnot supported\n```\n'), ['a.', 'B `x` is not supported.', '| `y` | refused |']);
});
