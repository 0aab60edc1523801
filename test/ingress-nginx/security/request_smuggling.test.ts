// ingress-nginx e2e security/request_smuggling.go: a request whose body is itself a request (to a hidden server of an
// http-snippet) gets the auth-signin redirect of its error page, and the body is never read as a second request.
// A third, plain request follows on the same connection, so the exchange ends when nginx closes it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ann, ing, rawExchange, startSuite, type Suite } from '../harness.js';

void describe('security/request_smuggling.go', () => {
  let s: Suite;
  let auth: Server;
  const host = 'foo.bar.com';
  before(async () => {
    // The auth service refuses everyone: every request gets the signin redirect through error_page 401.
    auth = createServer((_req, res) => {
      res.writeHead(401);
      res.end();
    });
    await new Promise<void>((resolve) => auth.listen(0, '127.0.0.1', resolve));
    s = await startSuite({ args: ['--snippet-mode', 'any'] });
    // The hidden server listens on Portico's HTTP port, known once it runs.
    const hidden = `server { listen ${s.portico.http}; server_name notlocalhost; location /_hidden/index.html { return 200 'This should be hidden!'; } }`;
    await s.config({ 'http-snippet': hidden }, async () => (await s.get('notlocalhost', '/_hidden/index.html')).status === 200);
    const annotations = ann({ 'auth-signin': 'https://signin.example/bearer', 'auth-url': `http://127.0.0.1:${(auth.address() as AddressInfo).port}/basic-auth` });
    await s.put('ingresses.json', [ing('smuggle', host, { annotations })], async () => (await s.get(host, '/')).status === 302);
  });
  after(async () => {
    await s.stop();
    await new Promise<void>((resolve) =>
      auth.close(() => {
        resolve();
      }),
    );
  });

  test('should not return body content from error_page', async () => {
    const smuggled = 'GET /_hidden/index.html HTTP/1.1\r\nHost: notlocalhost\r\n\r\n';
    assert.equal(smuggled.length, 56);
    const out = await rawExchange(s.portico.http, `GET /echo HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 56\r\n\r\n${smuggled}GET /last HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
    assert.match(out, /^HTTP\/1\.1 302/);
    assert.ok(!out.includes('This should be hidden!'), out);
    // Both real requests were answered (the signin redirect twice), nothing in between.
    assert.equal(out.match(/HTTP\/1\.1 /g)?.length, 2, out);
  });
});
