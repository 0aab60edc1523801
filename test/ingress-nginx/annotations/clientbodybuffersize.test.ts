// ingress-nginx e2e annotations/clientbodybuffersize.go: client-body-buffer-size is how much of a request body nginx
// holds in memory; a larger body goes to a temporary file, which nginx reports in its error log (warn).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { until } from '../../support/portico.js';
import { ann, echoed, ing, startSuite, type Suite } from '../harness.js';

const SIZES = ['1000', '1K', '1k', '1m', '1M', '1b'];
const MARKER = 'marker.clientbodybuffersize.test';
const host = (size: string) => `cbbs-${size.toLowerCase() === size ? size : `${size}u`}.clientbodybuffersize.test`.toLowerCase();

void describe('annotations/clientbodybuffersize.go', () => {
  let s: Suite;
  before(async () => {
    s = await startSuite();
    await s.put(
      'ingresses.json',
      [...SIZES.map((size) => ing(`cbbs-${SIZES.indexOf(size)}`, host(size), { annotations: ann({ 'client-body-buffer-size': size }) })), ing('marker', MARKER)],
      async () => (await Promise.all(SIZES.map(async (size) => (await s.get(host(size), '/')).status))).every((st) => st === 200),
    );
  });
  after(() => s.stop());

  /** The temporary-file warnings nginx logged for requests to `h`. */
  const spilled = (h: string) => s.portico.output.filter((l) => l.includes('a client request body is buffered to a temporary file') && l.includes(`host: \\"${h}\\"`)).length;

  /** POSTs `bytes` bytes; true when nginx wrote the body to a temporary file (logged a warning for it). */
  const post = async (size: string, bytes: number): Promise<boolean> => {
    const before = spilled(host(size));
    const body = 'b'.repeat(bytes);
    const r = await s.get(host(size), '/', { method: 'POST', body, headers: { 'content-type': 'text/plain' } });
    assert.equal(r.status, 200);
    assert.equal(echoed(r).body, body);
    // A marker body that surely spills, sent after the answer: once its warning is logged, so is any of the POST's.
    const marks = spilled(MARKER);
    assert.equal((await s.get(MARKER, '/', { method: 'POST', body: 'm'.repeat(64 * 1024), headers: { 'content-type': 'text/plain' } })).status, 200);
    await until('the marker warning', () => spilled(MARKER) > marks, 10_000);
    return spilled(host(size)) > before;
  };

  test('should set client_body_buffer_size to 1000', async () => {
    assert.equal(await post('1000', 900), false);
    assert.equal(await post('1000', 4000), true);
  });

  test('should set client_body_buffer_size to 1K', async () => {
    assert.equal(await post('1K', 1000), false);
    assert.equal(await post('1K', 4000), true);
  });

  test('should set client_body_buffer_size to 1k', async () => {
    assert.equal(await post('1k', 1000), false);
    assert.equal(await post('1k', 4000), true);
  });

  test('should set client_body_buffer_size to 1m', async () => {
    // The default (8k) would spill this body.
    assert.equal(await post('1m', 512 * 1024), false);
  });

  test('should set client_body_buffer_size to 1M', async () => {
    assert.equal(await post('1M', 512 * 1024), false);
  });

  test('should not set client_body_buffer_size to invalid 1b', async () => {
    // "1b" is no size: the default (8k) stays.
    assert.equal(await post('1b', 4000), false);
    assert.equal(await post('1b', 16000), true);
  });
});
