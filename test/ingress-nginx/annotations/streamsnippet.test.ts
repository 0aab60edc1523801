// ingress-nginx e2e annotations/streamsnippet.go: an Ingress's stream-snippet (here a stream server of its own on a
// port) is refused under --snippet-mode=safe, the default, even with allow-snippet-annotations: stream{} has no place
// that belongs to one Ingress (docs/adr/0012, docs/migration.md); the Ingress is refused with a Warning (404) and the
// port stays closed. The ConfigMap's stream-snippet may hold stream-wide timeouts, buffers and access lists only: a server block
// there is refused with a Warning naming the key. --snippet-mode=any renders both, as ingress-nginx.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { freePort, until } from '../../support/portico.js';
import { ann, ing, rawExchange, startSuite, type Suite } from '../harness.js';

const closed = async (port: number): Promise<boolean> =>
  rawExchange(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n').then(
    () => false,
    (err: unknown) => String(err).includes('ECONNREFUSED'),
  );

void describe('annotations/streamsnippet.go', () => {
  let s: Suite;
  const warned = (what: string, word: string) => s.portico.output.some((l) => l.includes('"level":40') && l.includes(what) && l.includes(word));
  before(async () => {
    s = await startSuite();
  });
  after(() => s.stop());

  test('should add value of stream-snippet to nginx config', async () => {
    const port = await freePort();
    await s.config({ 'allow-snippet-annotations': 'true', 'annotations-risk-level': 'Critical' });
    const snippet = `server {listen ${port}; proxy_pass 127.0.0.1:${s.echo.port};}`;
    await s.put('ingress.json', [ing('stream-snippet', 'foo.com', { annotations: ann({ 'stream-snippet': snippet }) })], () => Promise.resolve(warned('default/stream-snippet', 'stream-snippet')));
    // the Ingress is held out whole (a snippet it asked for is never dropped silently): the default backend answers
    assert.equal((await s.get('foo.com', '/')).status, 404);
    assert.equal(await closed(port), true, 'the snippet opened no port');
  });

  test('should add stream-snippet and drop annotations per admin config', async () => {
    const [cmPort, annPort] = [await freePort(), await freePort()];
    await s.config({ 'allow-snippet-annotations': 'false', 'stream-snippet': `server {listen ${cmPort}; proxy_pass 127.0.0.1:${s.echo.port};}` });
    const snippet = `server {listen ${annPort}; proxy_pass 127.0.0.1:${s.echo.port};}`;
    await s.put(
      'ingress.json',
      [ing('cm', 'cm.foo.com'), ing('annot', 'annot.foo.com', { annotations: ann({ 'stream-snippet': snippet }) })],
      async () => (await s.get('cm.foo.com', '/')).status === 200 && (await s.get('annot.foo.com', '/')).status === 200,
    );
    // the ConfigMap's server block: off the stream allowlist; the annotation: dropped while snippets are not allowed
    await until('a Warning naming the ConfigMap key', () => warned('data.stream-snippet', 'server'), 10_000);
    await until('a Warning naming the annotation', () => warned('default/annot', 'allow-snippet-annotations'), 10_000);
    assert.equal(await closed(cmPort), true);
    assert.equal(await closed(annPort), true);
  });
});
