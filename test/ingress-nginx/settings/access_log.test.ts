// ingress-nginx e2e settings/access_log.go: where the access logs go. access-log-path names the file of both the
// HTTP log and the stream log (a TCP service of tcp-services-configmap, one line per connection);
// http-access-log-path and stream-access-log-path name each one's own.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configMap } from '../../support/manifests.js';
import { freePort, until } from '../../support/portico.js';
import { ing, rawExchange, startSuite, type Suite } from '../harness.js';

/** A stream log line in ingress-nginx's log_stream format: [client] [time] TCP status sent received seconds. */
const STREAM_LINE = /^\[127\.0\.0\.1\] \[[^\]]+\] TCP 200 \d+ \d+ \d+\.\d{3}$/m;

void describe('settings/access_log.go', () => {
  let s: Suite;
  let tcpPort = 0;
  const host = 'access-log';
  const dir = mkdtempSync(join(tmpdir(), 'portico-access-log-'));
  const defaultLog = () => join(s.portico.workDir, 'logs/access.log');
  let n = 0;
  const read = (file: string) => {
    try {
      return readFileSync(file, 'utf8');
    } catch {
      return '';
    }
  };
  /** Sends requests with a fresh path until one shows in `file` (nginx flushes its buffered log every second); that path. */
  const logsTo = async (file: string) => {
    const sent: string[] = [];
    let path: string | undefined;
    const found = () => {
      const text = read(file);
      path = sent.find((p) => text.includes(`GET ${p} HTTP/1.1`));
      return path !== undefined;
    };
    await until(
      `an access line in ${file}`,
      async () => {
        sent.push(`/probe-${++n}`);
        assert.equal((await s.get(host, sent.at(-1) ?? '')).status, 200);
        return until('flushed', found, 1_500)
          .then(() => true)
          .catch(() => false);
      },
      30_000,
      0,
    );
    return path ?? '';
  };
  /** Opens TCP connections to the echo backend through the stream section until one is logged in `file`. */
  const streamLogsTo = async (file: string) => {
    const before = (read(file).match(new RegExp(STREAM_LINE.source, 'gm')) ?? []).length;
    await until(
      `a stream access line in ${file}`,
      async () => {
        const answer = await rawExchange(tcpPort, `GET /tcp HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
        assert.match(answer, /"id":"echo"/);
        return until('flushed', () => (read(file).match(new RegExp(STREAM_LINE.source, 'gm')) ?? []).length > before, 1_500)
          .then(() => true)
          .catch(() => false);
      },
      30_000,
      0,
    );
  };

  before(async () => {
    tcpPort = await freePort();
    s = await startSuite({ args: ['--tcp-services-configmap', 'default/tcp-services'], objects: [configMap('tcp-services', { [String(tcpPort)]: 'default/echo:80' })] });
    const tcpServed = async () => {
      try {
        return (await rawExchange(tcpPort, `GET / HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`)).includes('"id":"echo"');
      } catch {
        return false;
      }
    };
    await s.put('ingresses.json', [ing(host, host)], async () => (await s.get(host, '/')).status === 200 && tcpServed());
  });
  after(async () => {
    await s.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('use the default configuration', async () => {
    // By default the access log is Portico's stdout; the harness gives Portico a pipe, so it is the work dir's file,
    // for the HTTP and the stream section alike.
    await logsTo(defaultLog());
    await streamLogsTo(defaultLog());
  });

  test('use the specified configuration', async () => {
    const file = join(dir, 'access.log');
    await s.config({ 'access-log-path': file });
    const path = await logsTo(file);
    await streamLogsTo(file);
    assert.ok(!read(defaultLog()).includes(`GET ${path} `));
  });

  test('use the specified configuration', async () => {
    const file = join(dir, 'http-access.log');
    await s.config({ 'http-access-log-path': file });
    await logsTo(file);
    // the stream log stays where access-log-path (here its default) says
    await streamLogsTo(defaultLog());
    assert.doesNotMatch(read(file), STREAM_LINE);
  });

  test('use the specified configuration', async () => {
    const file = join(dir, 'stream-access.log');
    await s.config({ 'stream-access-log-path': file });
    await streamLogsTo(file);
    // the HTTP log stays in its default file, and none of its lines go to the stream file
    const path = await logsTo(defaultLog());
    assert.ok(!read(file).includes(`GET ${path} `));
  });

  test('use the specified configuration', async () => {
    const http = join(dir, 'http-access-2.log');
    const stream = join(dir, 'stream-access-2.log');
    await s.config({ 'http-access-log-path': http, 'stream-access-log-path': stream });
    const path = await logsTo(http);
    await streamLogsTo(stream);
    assert.doesNotMatch(read(http), STREAM_LINE);
    assert.ok(!read(stream).includes(`GET ${path} `));
  });
});
