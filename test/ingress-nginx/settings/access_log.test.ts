// ingress-nginx e2e settings/access_log.go: where the HTTP access log goes (access-log-path, http-access-log-path).
// Portico's stream section writes no access log, so stream-access-log-path is an open gap.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { until } from '../../support/portico.js';
import { ing, startSuite, type Suite } from '../harness.js';

void describe('settings/access_log.go', () => {
  let s: Suite;
  const host = 'access-log';
  const dir = mkdtempSync(join(tmpdir(), 'portico-access-log-'));
  let n = 0;
  const read = (file: string) => {
    try {
      return readFileSync(file, 'utf8');
    } catch {
      return '';
    }
  };
  /** Sends requests with a fresh path until one shows in `file` (nginx flushes its buffered log every second). */
  const logsTo = async (file: string) => {
    let path = '';
    await until(
      `an access line in ${file}`,
      async () => {
        path = `/probe-${++n}`;
        assert.equal((await s.get(host, path)).status, 200);
        return until('flushed', () => read(file).includes(`GET ${path} HTTP/1.1`), 3_000)
          .then(() => true)
          .catch(() => false);
      },
      30_000,
      0,
    );
    return path;
  };

  before(async () => {
    s = await startSuite();
    await s.put('ingresses.json', [ing(host, host)], async () => (await s.get(host, '/')).status === 200);
  });
  after(async () => {
    await s.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('use the default configuration', async () => {
    // By default the access log is Portico's stdout; the harness gives Portico a pipe, so it is the work dir's file.
    await logsTo(join(s.portico.workDir, 'logs/access.log'));
  });

  test('use the specified configuration', async () => {
    const file = join(dir, 'access.log');
    await s.config({ 'access-log-path': file });
    const path = await logsTo(file);
    assert.ok(!read(join(s.portico.workDir, 'logs/access.log')).includes(`GET ${path} `));
  });

  test('use the specified configuration', async () => {
    const file = join(dir, 'http-access.log');
    await s.config({ 'http-access-log-path': file });
    await logsTo(file);
  });

  test('use the specified configuration', { todo: 'stream access log' }, async () => {
    // stream-access-log-path: the stream section (tcp-services-configmap) would log each TCP connection there.
    await s.config({ 'stream-access-log-path': join(dir, 'stream-access.log') });
    assert.ok(read(join(dir, 'stream-access.log')).length > 0);
  });

  test('use the specified configuration', { todo: 'stream access log' }, async () => {
    const file = join(dir, 'http-access-2.log');
    await s.config({ 'http-access-log-path': file, 'stream-access-log-path': join(dir, 'stream-access-2.log') });
    await logsTo(file);
    assert.ok(read(join(dir, 'stream-access-2.log')).length > 0);
  });
});
