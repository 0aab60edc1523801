// ingress-nginx e2e settings/log-format.go: log-format-escape-json, log-format-escape-none and log-format-upstream,
// read in the access log nginx writes (the harness's Portico has a pipe for stdout, so the log is the work
// directory's logs/access.log).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { until } from '../../support/portico.js';
import { ing, startSuite, type Suite } from '../harness.js';

void describe('settings/log-format.go', () => {
  let s: Suite;
  const host = 'log-format';
  let n = 0;
  const log = () => {
    try {
      return readFileSync(join(s.portico.workDir, 'logs/access.log'), 'utf8');
    } catch {
      return '';
    }
  };
  /**
   * Applies `config`, then sends requests with a User-Agent (and `headers`) holding double quotes until the access log
   * shows the one expected: `expect(token)` is how the line must read. Returns the access log.
   */
  const logged = async (config: Record<string, string>, headers: (token: string) => Record<string, string>, expect: (token: string) => string) => {
    await s.config(config);
    let want = '';
    await until(
      'the access line',
      async () => {
        const token = `probe${++n}`;
        const r = await s.get(host, '/', { headers: { 'user-agent': `${token} "q"`, ...headers(token) } });
        assert.equal(r.status, 200);
        want = expect(token);
        // nginx buffers the log and flushes it every second.
        return until('flushed', () => log().includes(`${token} `) || log().includes(`${token}"`) || log().includes(`${token}\\`), 5_000)
          .then(() => log().includes(want))
          .catch(() => false);
      },
      30_000,
      0,
    );
    return log();
  };
  const none = () => ({});

  before(async () => {
    s = await startSuite();
    await s.put('ingresses.json', [ing(host, host)], async () => (await s.get(host, '/')).status === 200);
  });
  after(() => s.stop());

  test('should not configure log-format escape by default', async () => {
    assert.ok((await logged({}, none, (t) => `${t} \\x22q\\x22`)).length > 0);
  });

  test('should enable the log-format-escape-json', async () => {
    assert.ok((await logged({ 'log-format-escape-json': 'true' }, none, (t) => `${t} \\"q\\"`)).length > 0);
  });

  test('should disable the log-format-escape-json', async () => {
    assert.ok((await logged({ 'log-format-escape-json': 'false' }, none, (t) => `${t} \\x22q\\x22`)).length > 0);
  });

  test('should enable the log-format-escape-none', async () => {
    assert.ok((await logged({ 'log-format-escape-none': 'true' }, none, (t) => `${t} "q"`)).length > 0);
  });

  test('should disable the log-format-escape-none', async () => {
    assert.ok((await logged({ 'log-format-escape-none': 'false' }, none, (t) => `${t} \\x22q\\x22`)).length > 0);
  });

  test('log-format-escape-json enabled', async () => {
    const format = '"{"my_header1":"$http_header1", "my_header2":"$http_header2", "ua":"$http_user_agent"}"';
    const out = await logged(
      { 'log-format-escape-json': 'true', 'log-format-upstream': format },
      () => ({ header1: 'Here is "header1" with json escape' }),
      (t) => `"ua":"${t} \\"q\\""`,
    );
    assert.ok(out.includes('{"my_header1":"Here is \\"header1\\" with json escape", "my_header2":""'));
  });

  test('log-format default escape', async () => {
    const format = '"{"my_header3":"$http_header3", "my_header4":"$http_header4", "ua":"$http_user_agent"}"';
    const out = await logged(
      { 'log-format-escape-json': 'false', 'log-format-upstream': format },
      () => ({ header3: 'Here is "header3" with default escape' }),
      (t) => `"ua":"${t} \\x22q\\x22"`,
    );
    assert.ok(out.includes('{"my_header3":"Here is \\x22header3\\x22 with default escape", "my_header4":"-"'));
  });

  test('log-format-escape-none enabled', async () => {
    const format = '"{"my_header5":"$http_header5", "my_header6":"$http_header6", "ua":"$http_user_agent"}"';
    const out = await logged(
      { 'log-format-escape-none': 'true', 'log-format-upstream': format },
      () => ({ header5: 'Here is "header5" with none escape' }),
      (t) => `"ua":"${t} "q""`,
    );
    assert.ok(out.includes('{"my_header5":"Here is "header5" with none escape", "my_header6":""'));
  });
});
