// ingress-nginx e2e ingress/pathtype_prefix.go: Prefix matches whole path elements; use-regex paths match from the start.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ann, ing } from '../harness.js';
import { startPathSuite, type PathSuite } from './paths.js';

const regex = ann({ 'use-regex': 'true' });

void describe('ingress/pathtype_prefix.go', () => {
  let p: PathSuite;
  const status = async (host: string, path: string) => (await p.s.get(host, path)).status;
  before(async () => {
    p = await startPathSuite([]);
    await p.s.put(
      'ingresses.json',
      [
        ing('prefix', 'prefix.path', { path: '/aaa' }),
        ing('simple', 'echo.com.br', { path: '/id/[0-9]+', type: 'ImplementationSpecific', annotations: regex }),
        ing('anchored', 'echo.regex.br', { path: '/id/[0-9]+$', type: 'ImplementationSpecific', annotations: regex }),
        ing('size', 'echo.regex.size.br', { path: '/id/[0-9]{3}$', type: 'ImplementationSpecific', annotations: regex }),
        ing('multi', 'echo.multi.segment.br', { path: '/id/[0-9]+/post/[a-zA-Z]+$', type: 'ImplementationSpecific', annotations: regex }),
      ],
      async () => (await status('echo.multi.segment.br', '/id/123/post/abc')) === 200 && (await status('prefix.path', '/aaa')) === 200,
    );
  });
  after(() => p.stop());

  test('should return 404 when prefix /aaa does not match request /aaaccc', async () => {
    assert.equal(await status('prefix.path', '/aaa'), 200);
    assert.equal(await status('prefix.path', '/aaacccc'), 404);
    assert.equal(await status('prefix.path', '/aaa/cccc'), 200);
    assert.equal(await status('prefix.path', '/aaa/'), 200);
  });

  test('should test prefix path using simple regex pattern for /id/{int}', async () => {
    for (const path of ['/id/1', '/id/12', '/id/123', '/id/123a']) assert.equal(await status('echo.com.br', path), 200, path);
    assert.equal(await status('echo.com.br', '/id/aaa'), 404);
  });

  test('should test prefix path using regex pattern for /id/{int} ignoring non-digits characters at end of string', async () => {
    assert.equal(await status('echo.regex.br', '/id/1'), 200);
    assert.equal(await status('echo.regex.br', '/id/aaa'), 404);
    assert.equal(await status('echo.regex.br', '/id/123a'), 404);
  });

  test('should test prefix path using fixed path size regex pattern /id/{int}{3}', async () => {
    assert.equal(await status('echo.regex.size.br', '/id/99'), 404);
    assert.equal(await status('echo.regex.size.br', '/id/123'), 200);
    assert.equal(await status('echo.regex.size.br', '/id/9999'), 404);
    assert.equal(await status('echo.regex.size.br', '/id/123a'), 404);
  });

  test('should correctly route multi-segment path patterns', async () => {
    assert.equal(await status('echo.multi.segment.br', '/id/123/post/abc'), 200);
    assert.equal(await status('echo.multi.segment.br', '/id/123/post/abc123'), 404);
    assert.equal(await status('echo.multi.segment.br', '/id/abc/post/abc'), 404);
  });
});
