// ingress-nginx e2e annotations/log.go: enable-access-log false keeps a location's requests out of the access log;
// enable-rewrite-log true writes nginx's rewrite notices to the error log.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { until } from '../../support/portico.js';
import { ann, ing, onOneConnection, startSuite, type Suite } from '../harness.js';

void describe('annotations/log.go', () => {
  let s: Suite;
  const off = 'off.log.test';
  const on = 'on.log.test';
  const rewrite = 'rewrite.log.test';
  before(async () => {
    s = await startSuite();
    await s.put(
      'ingresses.json',
      [
        ing('log-off', off, { annotations: ann({ 'enable-access-log': 'false' }) }),
        ing('log-on', on),
        ing('log-rewrite', rewrite, { annotations: ann({ 'enable-rewrite-log': 'true', 'rewrite-target': '/to' }) }),
      ],
      async () => (await s.get(rewrite, '/')).status === 200 && (await s.get(off, '/')).status === 200,
    );
  });
  after(() => s.stop());

  test('set access_log off', async () => {
    const id = `${Date.now()}`;
    assert.deepEqual(
      await onOneConnection(s.portico.http, [
        [off, `/off-${id}`],
        [on, `/on-${id}`],
      ]),
      [200, 200],
    );
    // One worker served both, in order, into one access-log buffer: once the second line is out, so is any first one.
    const log = () => readFile(join(s.portico.workDir, 'logs/access.log'), 'utf8');
    await until('the other host is logged', async () => (await log()).includes(`/on-${id}`), 10_000);
    assert.ok(!(await log()).includes(`/off-${id}`), 'the enable-access-log: false host is not');
  });

  test('set rewrite_log on', async () => {
    assert.equal((await s.get(rewrite, '/from')).status, 200);
    await until('a rewrite notice', () => s.portico.output.some((l) => l.includes('rewritten data: \\"/to\\"') && l.includes(`host: \\"${rewrite}\\"`)), 10_000);
  });
});
