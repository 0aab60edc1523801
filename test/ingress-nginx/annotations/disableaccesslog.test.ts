// ingress-nginx e2e annotations/disableaccesslog.go: disable-access-log turns off the HTTP and the stream access log,
// disable-http-access-log the HTTP one, disable-stream-access-log the stream one (a TCP service of
// tcp-services-configmap); the requests are served all the same.
//
// Absence is read without waiting: access-log-params buffer=16 is smaller than any line, so nginx writes each line
// at once (an HTTP request's before the next request on its keep-alive connection is read, a TCP connection's
// before the connection is closed). Each test first shows a line is there when the log is on.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { configMap } from '../../support/manifests.js';
import { freePort, syncCount, until } from '../../support/portico.js';
import { ing, onOneConnection, rawExchange, startSuite, type Suite } from '../harness.js';

const UNBUFFERED = { 'access-log-params': 'buffer=16' };
const STREAM_LINE = /^\[127\.0\.0\.1\] \[[^\]]+\] TCP 200 /gm;

void describe('annotations/disableaccesslog.go', () => {
  let s: Suite;
  let tcpPort = 0;
  let n = 0;
  const log = () => readFile(join(s.portico.workDir, 'logs/access.log'), 'utf8').catch(() => '');

  /** Whether a request to `host` is in the access log once the next request on its connection is answered. */
  const httpLogged = async (host: string): Promise<boolean> => {
    const path = `/probe-${++n}`;
    assert.deepEqual(
      await onOneConnection(s.portico.http, [
        [host, path],
        [host, '/next'],
      ]),
      [200, 200],
    );
    return (await log()).includes(`GET ${path} HTTP/1.1`);
  };
  /** Whether a TCP connection through the stream section is in the access log once it is closed. */
  const streamLogged = async (): Promise<boolean> => {
    const before = (await log()).match(STREAM_LINE)?.length ?? 0;
    assert.match(await rawExchange(tcpPort, 'GET / HTTP/1.1\r\nHost: tcp\r\nConnection: close\r\n\r\n'), /"id":"echo"/);
    return ((await log()).match(STREAM_LINE)?.length ?? 0) > before;
  };
  /**
   * Applies `data` and waits until it is served: the answer shows `hidden` hidden (hide-headers, in the same nginx.conf)
   * and a reload more than before is applied (no old worker accepts connections any more).
   */
  const apply = async (host: string, data: Record<string, string>, hidden: 'x-backend' | 'x-http-version') => {
    const reloads = syncCount(s.portico.output, 'reload');
    const shown = hidden === 'x-backend' ? 'x-http-version' : 'x-backend';
    await s.config({ ...UNBUFFERED, ...data, 'hide-headers': hidden }, async () => {
      const r = await s.get(host, '/');
      return r.status === 200 && r.headers[hidden] === undefined && r.headers[shown] !== undefined;
    });
    await until('the reload applied', () => syncCount(s.portico.output, 'reload') > reloads, 20_000);
  };

  before(async () => {
    tcpPort = await freePort();
    s = await startSuite({ config: UNBUFFERED, args: ['--tcp-services-configmap', 'default/tcp-services'], objects: [configMap('tcp-services', { [String(tcpPort)]: 'default/echo:80' })] });
    const hosts = ['disableaccesslog.foo.com', 'disablehttpaccesslog.foo.com'];
    await s.put('ingresses.json', [ing('dal', hosts[0]), ing('dhal', hosts[1])], async () => {
      const ok = (await s.get(hosts[0] ?? '', '/')).status === 200 && (await s.get(hosts[1] ?? '', '/')).status === 200;
      return ok && (await rawExchange(tcpPort, 'GET / HTTP/1.1\r\nHost: tcp\r\nConnection: close\r\n\r\n').catch(() => '')).includes('"id":"echo"');
    });
  });
  after(() => s.stop());

  test('disable-access-log set access_log off', async () => {
    const host = 'disableaccesslog.foo.com';
    assert.equal(await httpLogged(host), true, 'logged while the access log is on');
    assert.equal(await streamLogged(), true, 'a TCP connection logged while the access log is on');
    await apply(host, { 'disable-access-log': 'true' }, 'x-backend');
    assert.equal(await httpLogged(host), false);
    assert.equal(await streamLogged(), false);
  });

  test('disable-http-access-log set access_log off', async () => {
    const host = 'disablehttpaccesslog.foo.com';
    await apply(host, {}, 'x-http-version');
    assert.equal(await httpLogged(host), true, 'logged while the access log is on');
    await apply(host, { 'disable-http-access-log': 'true' }, 'x-backend');
    assert.equal(await httpLogged(host), false);
    // the stream section keeps its log
    assert.equal(await streamLogged(), true);
  });

  test('disable-stream-access-log set access_log off', async () => {
    const host = 'disablehttpaccesslog.foo.com';
    await apply(host, {}, 'x-http-version');
    assert.equal(await streamLogged(), true, 'a TCP connection logged while the stream log is on');
    await apply(host, { 'disable-stream-access-log': 'true' }, 'x-backend');
    assert.equal(await streamLogged(), false);
    // the HTTP log stays on, and the request is served
    assert.equal(await httpLogged(host), true);
  });
});
