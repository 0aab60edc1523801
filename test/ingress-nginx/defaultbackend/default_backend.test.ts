// ingress-nginx e2e defaultbackend/default_backend.go: with no Ingress, every request gets the default backend's 404.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { until } from '../../support/portico.js';
import { ing, onOneConnection, startSuite, type Suite } from '../harness.js';

void describe('defaultbackend/default_backend.go', () => {
  let s: Suite;
  before(async () => {
    s = await startSuite();
  });
  after(() => s.stop());

  test('should return 404 sending requests when only a default backend is running', async () => {
    for (const [host, path, method] of [
      ['foo.bar.com', '/', 'GET'],
      ['', '/', 'GET'],
      ['foo.bar.com', '/ssl', 'POST'],
      ['anything', '/some/path?x=1', 'DELETE'],
    ] as const) {
      const r = await s.get(host, path, { method });
      assert.equal(r.status, 404, `${method} ${host}${path}`);
    }
  });

  /**
   * Sends an unmatched request for `path`, then a marker request on the same connection; whether `path` was logged.
   * The marker's host is new each time: once it is served, so is the ConfigMap written before it (the folder is read in order).
   */
  const logged = async (path: string): Promise<boolean> => {
    const id = `${Date.now()}`;
    const marker = `m${id}.default-backend.test`;
    await s.put('marker.json', [ing('marker', marker)], async () => (await s.get(marker, '/')).status === 200);
    assert.deepEqual(
      await onOneConnection(s.portico.http, [
        ['foo', `${path}-${id}`],
        [marker, `/marker-${id}`],
      ]),
      [404, 200],
    );
    const log = () => readFile(join(s.portico.workDir, 'logs/access.log'), 'utf8');
    // One worker wrote both lines in order into one buffer: once the marker's is out, so is any of the first.
    await until('the marker is logged', async () => (await log()).includes(`/marker-${id}`), 10_000);
    return (await log()).includes(`${path}-${id}`);
  };

  test('enables access logging for default backend', async () => {
    await s.config({ 'enable-access-log-for-default-backend': 'true' });
    assert.equal(await logged('/somethingOne'), true);
  });

  test('disables access logging for default backend', async () => {
    // The default (false): a request no Ingress serves gets the default backend's 404 and no access log line.
    await s.config({ 'enable-access-log-for-default-backend': 'false' });
    assert.equal(await logged('/somethingTwo'), false);
  });
});
