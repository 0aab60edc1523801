// ingress-nginx e2e settings/global_options.go: with max-worker-open-files at its default (0), every nginx worker may
// open the hard limit of open files less 1024 (worker_rlimit_nofile), whatever the number of workers; read from the
// workers' own /proc/<pid>/limits.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { until, workerPids } from '../../support/portico.js';
import { ing, startSuite, type Suite } from '../harness.js';

/** The soft and hard "Max open files" of a process. */
async function openFiles(pid: number): Promise<{ soft: number; hard: number }> {
  const line = /^Max open files\s+(\d+)\s+(\d+)\s/m.exec(await readFile(`/proc/${pid}/limits`, 'utf8'));
  if (!line) throw new Error(`no numeric open files limit for ${pid}`);
  return { soft: Number(line[1]), hard: Number(line[2]) };
}

void describe('settings/global_options.go', () => {
  let s: Suite;
  /** What ingress-nginx gives each worker: the hard limit the controller runs under less 1024, at least 1024. */
  let expected: number;
  /** The workers' soft limits, when all `count` workers (and no old ones) run. */
  const limits = async (count?: number): Promise<number[] | undefined> => {
    const pids = await workerPids(s.portico);
    if (count !== undefined && pids.length !== count) return undefined;
    return Promise.all(pids.map(async (p) => (await openFiles(p)).soft)).catch(() => undefined);
  };

  before(async () => {
    s = await startSuite();
    await s.put('ingress.json', [ing('global-options', 'global-options')], async () => (await s.get('global-options', '/')).status === 200);
    const pid = s.portico.proc.pid;
    assert.ok(pid !== undefined);
    expected = Math.max(1024, (await openFiles(pid)).hard - 1024);
  });
  after(() => s.stop());

  test('should have worker_rlimit_nofile option', async () => {
    // A worker retired by a reload may exit between the listing and the read: read again then.
    let found: number[] | undefined;
    await until('the workers limits read', async () => (found = await limits()) !== undefined && found.length > 0, 10_000);
    assert.ok(found !== undefined);
    assert.deepEqual(new Set(found), new Set([expected]));
  });

  test('should have worker_rlimit_nofile option and be independent on amount of worker processes', async () => {
    await s.config({ 'worker-processes': '11' });
    let found: number[] | undefined;
    // A worker just forked runs with the master's limits until its init sets worker_rlimit_nofile: wait until every one
    // of the 11 has done so (a worker that never does fails here, with the limits it has).
    await until('11 workers, each with its open files limit set', async () => (found = await limits(11)) !== undefined && found.every((n) => n === expected), 30_000).catch((err: unknown) => {
      assert.fail(`${String(err)}; the workers' soft limits: ${JSON.stringify(found)}, expected ${expected}`);
    });
    assert.deepEqual(new Set(found), new Set([expected]));
  });
});
