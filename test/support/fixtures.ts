// Fixture folders: input YAML → expected output compared whole; UPDATE_FIXTURES=1 rewrites the expectations.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseManifests } from '../../src/sources/parse.js';
import { Store } from '../../src/store/store.js';
import type { Snapshot } from '../../src/model/input.js';
import { REPO } from './portico.js';

const FIXTURES = join(REPO, 'test/fixtures');

/** The case folders under test/fixtures/<kind>. */
export function fixtureCases(kind: string): string[] {
  return readdirSync(join(FIXTURES, kind), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => join(FIXTURES, kind, d.name))
    .sort();
}

/** The snapshot a case's input.yaml gives (parse errors fail the test: inputs are meant to parse). */
export function loadSnapshot(dir: string): Snapshot {
  const parsed = parseManifests('input.yaml', readFileSync(join(dir, 'input.yaml'), 'utf8'));
  if (parsed.errors.length > 0) throw new Error(parsed.errors.join('\n'));
  const store = new Store<Snapshot>();
  for (const p of parsed.objects) store.upsert(p.kind, p.object);
  return store.snapshot();
}

/** The extra Portico flags of a case (its flags.json, an array of arguments), or none. */
export function caseFlags(dir: string): string[] {
  const file = join(dir, 'flags.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as string[]) : [];
}

/** The expected text of `file` in a case; with UPDATE_FIXTURES=1 it is first written from `actual`. */
export function expected(dir: string, file: string, actual: string): string {
  const path = join(dir, file);
  if (process.env['UPDATE_FIXTURES'] === '1' || !existsSync(path)) {
    if (process.env['UPDATE_FIXTURES'] !== '1') throw new Error(`${path} is missing: run with UPDATE_FIXTURES=1 and review it`);
    writeFileSync(path, actual);
  }
  return readFileSync(path, 'utf8');
}
