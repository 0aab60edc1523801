// ingress-nginx e2e settings/stream_snippet.go: the ConfigMap's stream-snippet. Under --snippet-mode=safe (the
// default) it may hold stream-wide timeouts, buffers and access lists only (docs/adr/0012, docs/migration.md): the
// upstream's stream server of its own is refused with a Warning naming the key and opens no port; an allowed
// directive goes into stream{}. --snippet-mode=any renders the server block, as ingress-nginx.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freePort, until } from '../../support/portico.js';
import { ing, rawExchange, startSuite, type Suite } from '../harness.js';

void describe('settings/stream_snippet.go', () => {
  let s: Suite;
  before(async () => {
    s = await startSuite();
  });
  after(() => s.stop());

  test('should add value of stream-snippet via config map to nginx config', async () => {
    const port = await freePort();
    await s.config({ 'stream-snippet': `server {listen ${port}; proxy_pass 127.0.0.1:${s.echo.port};}` });
    await s.put('ingress.json', [ing('foo', 'foo.com')], async () => (await s.get('foo.com', '/')).status === 200);
    const warned = () => s.portico.output.some((l) => l.includes('"level":40') && l.includes('data.stream-snippet') && l.includes('server'));
    await until('a Warning naming stream-snippet', warned, 10_000);
    const refused = await rawExchange(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n').then(
      () => false,
      (err: unknown) => String(err).includes('ECONNREFUSED'),
    );
    assert.equal(refused, true, 'the refused snippet opened no port');
    // a stream-wide directive of the allowlist is taken into stream{}
    await s.config({ 'stream-snippet': 'proxy_connect_timeout 3s;' });
    const conf = () => readFile(join(s.portico.workDir, 'nginx.conf'), 'utf8');
    await until('the allowed snippet in stream{}', async () => /\nstream \{\n[^]*\n {4}proxy_connect_timeout 3s;\n/.test(await conf()), 10_000);
    assert.equal((await s.get('foo.com', '/')).status, 200);
  });
});
