// glibc's trim threshold fixed at the controller's start unless the operator set their own (controller/malloc-thresholds.ts,
// docs/adr/0062): what it calls, what it leaves alone, and, in a child process on this machine's glibc, that a 1 MiB
// block freed after a 20 MiB one is still mapped on its own (returned when freed) instead of carved from the heap.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fixMallocThresholds } from '../../src/controller/malloc-thresholds.js';
import { quietLogger } from '../support/quiet-log.js';

const log = quietLogger();

/** A mallopt that records its calls and answers `answer`. */
function recorded(answer = 1): { calls: [number, number][]; load: () => Promise<(p: number, v: number) => number> } {
  const calls: [number, number][] = [];
  return {
    calls,
    load: () =>
      Promise.resolve((p: number, v: number) => {
        calls.push([p, v]);
        return answer;
      }),
  };
}

test("sets the trim threshold (M_TRIM_THRESHOLD, -1) to glibc's default of 128 KiB, once", async () => {
  const m = recorded();
  assert.equal(await fixMallocThresholds(log, {}, m.load), 'set');
  assert.deepEqual(m.calls, [[-1, 131072]]);
});

test("the operator's own malloc environment stands: nothing is called", async () => {
  for (const env of [
    { MALLOC_TRIM_THRESHOLD_: '33554432' },
    { MALLOC_MMAP_THRESHOLD_: '4096' },
    { MALLOC_TOP_PAD_: '0' },
    { MALLOC_MMAP_MAX_: '0' },
    { GLIBC_TUNABLES: 'glibc.malloc.trim_threshold=1' },
  ]) {
    const m = recorded();
    assert.equal(await fixMallocThresholds(log, env, m.load), 'environment', JSON.stringify(env));
    assert.deepEqual(m.calls, []);
  }
  const other = recorded();
  assert.equal(await fixMallocThresholds(log, { GLIBC_TUNABLES: 'glibc.pthread.rseq=0' }, other.load), 'set', 'a tunable of something else is not a malloc setting');
});

test('without glibc (no mallopt, or it refuses) the start goes on', async () => {
  assert.equal(await fixMallocThresholds(log, {}, () => Promise.resolve(undefined)), 'unavailable');
  assert.equal(await fixMallocThresholds(log, {}, recorded(0).load), 'unavailable');
});

/** Where this machine's malloc puts a 1 MiB block asked for after a 20 MiB block was freed: 'heap' or 'mmap'. */
function placeAfterLargeFree(fix: boolean): string {
  const module = new URL('../../src/controller/malloc-thresholds.js', import.meta.url).href;
  const script = `
    import koffi from 'koffi';
    import { fixMallocThresholds } from ${JSON.stringify(module)};
    import { quietLogger } from ${JSON.stringify(new URL('../support/quiet-log.js', import.meta.url).href)};
    const env = { ...process.env };
    for (const k of Object.keys(env)) if (k.startsWith('MALLOC_') || k === 'GLIBC_TUNABLES') delete env[k];
    const done = ${fix ? 'await fixMallocThresholds(quietLogger(), env)' : "'none'"};
    const libc = koffi.load('libc.so.6');
    const malloc = libc.func('void *malloc(size_t)');
    const free = libc.func('void free(void *)');
    const sbrk = libc.func('void *sbrk(intptr_t)');
    free(malloc(20 * 1024 * 1024));
    const block = koffi.address(malloc(1024 * 1024));
    process.stdout.write(done + ' ' + (block < koffi.address(sbrk(0)) ? 'heap' : 'mmap'));
  `;
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('MALLOC_') && k !== 'GLIBC_TUNABLES'));
  return execFileSync(process.execPath, ['--input-type=module', '-e', script], { env, cwd: new URL('../../..', import.meta.url).pathname, encoding: 'utf8', timeout: 20_000 });
}

const glibc = (process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header?.glibcVersionRuntime !== undefined;

test("on glibc: without the fix a freed 20 MiB block raises malloc's thresholds; with it, 1 MiB blocks stay mapped", { skip: !glibc && 'not glibc' }, () => {
  assert.equal(placeAfterLargeFree(false), 'none heap', "glibc's dynamic threshold: the 1 MiB block now comes from the heap, kept when freed");
  assert.equal(placeAfterLargeFree(true), 'set mmap', 'fixed: the 1 MiB block is mapped on its own and unmapped when freed');
});
