// Bad values of the ConfigMap keys added for ingress-nginx's suite: each is refused with a reason naming the value,
// and the key keeps its previous value (nothing reaches nginx.conf).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseConfigMap } from '../../src/annotations/configmap.js';

void describe('ConfigMap keys: proxy-http-version, forwarded-host-header, bind-address, access logs, intercept errors', () => {
  void it('good values are taken', () => {
    const r = parseConfigMap({
      'proxy-http-version': '1.0',
      'forwarded-host-header': 'X-Edge-Host',
      'bind-address': '10.0.0.1, fd00::1',
      'disable-http-access-log': 'true',
      'enable-auth-access-log': 'true',
      'disable-proxy-intercept-errors': 'true',
      'disable-stream-access-log': 'true',
      'stream-access-log-path': '/var/log/stream.log',
      'log-format-stream': '$remote_addr $status ${upstream_addr}',
      'enable-access-log-for-default-backend': 'true',
      'access-log-params': 'buffer=16k, flush=5s',
    });
    assert.deepEqual(r.errors, []);
    assert.deepEqual(r.refused, []);
    assert.equal(r.settings.proxyHttpVersion, '1.0');
    assert.equal(r.settings.forwardedHostHeader, 'X-Edge-Host');
    assert.deepEqual(r.settings.bindAddress, ['10.0.0.1', 'fd00::1']);
    assert.equal(r.settings.disableHttpAccessLog, true);
    assert.equal(r.settings.enableAuthAccessLog, true);
    assert.equal(r.settings.disableProxyInterceptErrors, true);
    assert.equal(r.settings.disableStreamAccessLog, true);
    assert.equal(r.settings.streamAccessLogPath, '/var/log/stream.log');
    assert.equal(r.settings.logFormatStream, '$remote_addr $status ${upstream_addr}');
    assert.equal(r.settings.enableAccessLogForDefaultBackend, true);
    assert.deepEqual(r.settings.accessLogParams, ['buffer=16k', 'flush=5s']);
  });

  const bad: [string, string, RegExp][] = [
    ['proxy-http-version', '2', /"2"/],
    ['forwarded-host-header', 'X-Host; evil', /not a header name/],
    ['bind-address', '10.0.0.1, 0.0.0.0/0', /"0\.0\.0\.0\/0" is not an IP address/],
    ['bind-address', 'localhost', /"localhost" is not an IP address/],
    ['disable-http-access-log', 'maybe', /maybe/],
    ['enable-auth-access-log', 'yes please', /yes please/],
    ['disable-proxy-intercept-errors', 'on;', /on;/],
    // an http variable would fail nginx -t in stream{}; a quote would end the format
    ['log-format-stream', '$remote_addr $request', /\$request is not a variable a stream log format may use/],
    ['log-format-stream', 'cost $ 5', /\$ is not a variable a stream log format may use/],
    ['stream-access-log-path', 'stream.log', /not an absolute file path/],
    ['enable-access-log-for-default-backend', 'sometimes', /sometimes/],
    // nginx -t: "no buffer is defined for access_log"
    ['access-log-params', 'flush=5s', /flush= needs buffer=SIZE or gzip/],
  ];
  for (const [key, value, why] of bad) {
    void it(`${key}: ${JSON.stringify(value)} is refused with a reason, keeping the previous value`, () => {
      const r = parseConfigMap({ [key]: value });
      const e = r.errors.find((x) => x.key === key);
      assert.ok(e, `${key} not refused`);
      assert.match(e.reason, why);
    });
  }
});
