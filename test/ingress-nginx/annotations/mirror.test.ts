// ingress-nginx e2e annotations/mirror.go: mirror-target copies each request to another URL (its answer ignored);
// mirror-request-body decides whether the copy carries the body.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Backend } from '../../support/backends.js';
import { until } from '../../support/portico.js';
import { ann, echoed, ing, startEcho, startSuite, type Suite } from '../harness.js';

void describe('annotations/mirror.go', () => {
  let s: Suite;
  let mirror: Backend;
  before(async () => {
    mirror = await startEcho('mirror');
    s = await startSuite();
    const to = `http://127.0.0.1:${mirror.port}/mirror`;
    await s.put(
      'ingresses.json',
      [
        ing('plain', 'plain.mirror.test', { annotations: ann({ 'mirror-target': to }) }),
        ing('uri', 'uri.mirror.test', { annotations: ann({ 'mirror-target': 'https://test.env.com/$request_uri' }) }),
        ing('nobody', 'nobody.mirror.test', { annotations: ann({ 'mirror-target': to, 'mirror-request-body': 'off' }) }),
      ],
      async () => (await s.get('nobody.mirror.test', '/')).status === 200 && (await s.get('uri.mirror.test', '/')).status === 200,
    );
  });
  after(async () => {
    await s.stop();
    await mirror.close();
  });

  /** POSTs `body` to `host` with a unique header; the copy the mirror backend received. */
  const copyOf = async (host: string, body: string) => {
    const id = `${host}-${Date.now()}`;
    const r = await s.get(host, '/', { method: 'POST', body, headers: { 'content-type': 'text/plain', 'x-case': id } });
    assert.equal(r.status, 200);
    assert.equal(echoed(r).id, 'echo');
    await until('the mirrored copy', () => mirror.seen.some((e) => e.headers['x-case'] === id), 10_000);
    return mirror.seen.find((e) => e.headers['x-case'] === id);
  };

  test('should set mirror-target to http://localhost/mirror', async () => {
    const copy = await copyOf('plain.mirror.test', 'payload');
    assert.equal(copy?.url, '/mirror');
    assert.equal(copy?.body, 'payload');
  });

  test('should set mirror-target to https://test.env.com/$request_uri', async () => {
    // The mirror cannot be reached from here: the client's answer does not depend on it.
    const r = await s.get('uri.mirror.test', '/some/path');
    assert.equal(r.status, 200);
    assert.equal(echoed(r).url, '/some/path');
  });

  test('should disable mirror-request-body', async () => {
    // "off", as ingress-nginx takes it: the copy carries no body.
    const copy = await copyOf('nobody.mirror.test', 'payload');
    assert.equal(copy?.url, '/mirror');
    assert.equal(copy?.body, '');
  });
});
