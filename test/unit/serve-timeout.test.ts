// How long Portico waits for nginx to serve a configuration after a (re)start (src/nginx/process.ts serveTimeoutMs):
// in proportion to what its `nginx -t` cost, never below the 15 s that small configurations always had.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serveTimeoutMs } from '../../src/nginx/process.js';

test('a configuration whose nginx -t took long gets four times as long to be served, within 15 s and 120 s', () => {
  assert.equal(serveTimeoutMs(0), 15_000);
  assert.equal(serveTimeoutMs(2_000), 15_000);
  assert.equal(serveTimeoutMs(10_000), 40_000);
  assert.equal(serveTimeoutMs(29_000), 116_000);
  assert.equal(serveTimeoutMs(60_000), 120_000);
});
