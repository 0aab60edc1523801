// ingress-nginx e2e settings/gzip.go: use-gzip and its gzip-* keys, read from answers' Content-Encoding.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ing, startSuite, type Suite } from '../harness.js';

const MSIE6 = 'Mozilla/45.0 (compatible; MSIE 6.0; Windows NT 5.1)';

void describe('settings/gzip.go', () => {
  let s: Suite;
  const host = 'gzip';
  const encoding = async (path = '/', ua?: string) =>
    (await s.get(host, path, { headers: { 'accept-encoding': 'gzip', ...(ua === undefined ? {} : { 'user-agent': ua }) } })).headers['content-encoding'];
  /** Applies a ConfigMap and waits until `probe` answers as it should under it. */
  const use = (data: Record<string, string>, probe: () => Promise<boolean>) => s.config(data, probe);
  before(async () => {
    s = await startSuite();
    await s.put('ingresses.json', [ing(host, host)], async () => (await s.get(host, '/')).status === 200);
  });
  after(() => s.stop());

  test('should be disabled by default', async () => {
    assert.equal(await encoding(), undefined);
  });

  test('should be enabled with default settings', async () => {
    await use({ 'use-gzip': 'true' }, async () => (await encoding()) === 'gzip');
    const r = await s.get(host, '/', { headers: { 'accept-encoding': 'gzip' } });
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-encoding'], 'gzip');
    assert.match(String(r.headers['vary']), /Accept-Encoding/);
    // Below gzip-min-length (256 by default) nothing is compressed.
    assert.equal(await encoding('/bytes/100'), undefined);
  });

  test('should set gzip_comp_level to 4', async () => {
    await use({ 'use-gzip': 'true', 'gzip-level': '4' }, async () => (await encoding()) === 'gzip');
    assert.equal(await encoding(), 'gzip');
  });

  test('should set gzip_disable to msie6', async () => {
    await use({ 'use-gzip': 'true', 'gzip-disable': 'msie6' }, async () => (await encoding('/', MSIE6)) === undefined);
    assert.equal(await encoding('/', 'Mozilla/4.8 [en] (Windows NT 5.1; U)'), 'gzip');
    assert.equal(await encoding('/', MSIE6), undefined);
  });

  test('should set gzip_min_length to 100', async () => {
    await use({ 'use-gzip': 'true', 'gzip-min-length': '100', 'gzip-types': 'application/octet-stream' }, async () => (await encoding('/bytes/101')) === 'gzip');
    assert.equal(await encoding('/bytes/99'), undefined);
    assert.equal(await encoding('/bytes/101'), 'gzip');
  });

  test('should set gzip_types to text/html', async () => {
    await use({ 'use-gzip': 'true', 'gzip-types': 'text/html' }, async () => (await encoding('/html')) === 'gzip' && (await encoding('/')) === undefined);
    assert.equal(await encoding('/html'), 'gzip');
    assert.equal(await encoding('/'), undefined);
  });
});
