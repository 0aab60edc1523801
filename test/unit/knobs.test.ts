// Pure parts of the remaining knobs: FastCGI parameter values and their quoting, the FCGI render, the stream
// allowlist, auth-keepalive's validation, affinity-canary-behavior, proxy-max-temp-file-size's g, and the ConfigMap
// keys (ticket key, syslog host, no-auth-locations, global-allowed-response-headers).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { FASTCGI_VARS, paramValue } from '../../src/annotations/fastcgi.js';
import { parseAnnotations } from '../../src/annotations/parse.js';
import { parseConfigMap } from '../../src/annotations/configmap.js';
import { quoteVars } from '../../src/render/escape.js';
import { fastcgiLines } from '../../src/render/fastcgi.js';
import { snippetRefusal } from '../../src/model/snippets/check.js';
import { readDhParam } from '../../src/model/tls-dhparam.js';

const P = 'nginx.ingress.kubernetes.io';
const read = (a: Record<string, string>) =>
  parseAnnotations(Object.fromEntries(Object.entries(a).map(([k, v]) => [`${P}/${k}`, v])), { prefix: P, riskLevel: 'Critical', allowSnippets: true, namespace: 'ns' });

void describe('FastCGI values', () => {
  void it("take listed variables, in $name and ${name} form; refuse others, Portico's and control characters", () => {
    for (const ok of ['/srv$fastcgi_script_name', '${document_root}/x', '$http_x_user-$arg_a', '', 'say "hi"; }']) assert.equal(paramValue(ok).ok, true, ok);
    for (const bad of ['$portico_backend', '$request_body', '${', '$', 'a\nb', '$1']) assert.equal(paramValue(bad).ok, false, bad);
  });
  void it('quoteVars writes variables as ${name}, escapes quotes and backslashes, and refuses what validation missed', () => {
    assert.equal(quoteVars('/a"b\\$uri$args', FASTCGI_VARS), '"/a\\"b\\\\${uri}${args}"');
    assert.throws(() => quoteVars('$portico_x', FASTCGI_VARS), /refusing/);
    assert.throws(() => quoteVars('a\u0000', FASTCGI_VARS), /refusing/);
  });
  void it('a ConfigMap parameter replaces the standard one of its name; fastcgi_pass comes last', () => {
    const lines = fastcgiLines({ backendProtocol: 'FCGI', fastcgi: { index: 'index.php', params: [['SERVER_NAME', 'x.test']] } }, '');
    assert.deepEqual(
      lines.filter((l) => l.includes('SERVER_NAME')),
      ['fastcgi_param "SERVER_NAME" "x.test";'],
    );
    assert.deepEqual(lines.slice(-2), ['fastcgi_index "index.php";', 'fastcgi_pass portico_balancer;']);
  });
  void it('annotations: FCGI and AUTO_HTTP taken, a params ConfigMap of another namespace refused, proxy-redirect-from default refused with AUTO_HTTP', () => {
    assert.deepEqual(read({ 'backend-protocol': 'fcgi', 'fastcgi-params-configmap': 'cm' }).settings.location.fastcgi, { paramsConfigMap: 'ns/cm' });
    assert.match(read({ 'backend-protocol': 'FCGI', 'fastcgi-params-configmap': 'other/cm' }).errors[0]?.reason ?? '', /another namespace/);
    assert.deepEqual(
      read({ 'fastcgi-index': '../x' }).errors.map((e) => e.annotation),
      [`${P}/fastcgi-index`],
    );
    const auto = read({ 'backend-protocol': 'AUTO_HTTP', 'proxy-redirect-from': 'default', 'proxy-redirect-to': 'default' });
    assert.deepEqual(
      auto.errors.map((e) => e.annotation),
      [`${P}/proxy-redirect-from`],
    );
  });
});

void describe('stream snippets, compat annotations, sizes', () => {
  void it('stream context takes stream-wide tuning and access lists only', () => {
    assert.equal(snippetRefusal('proxy_timeout 30s;\nproxy_connect_timeout 2s;\nallow 10.0.0.0/8;\ndeny all;\ntcp_nodelay on;', 'safe', 'stream'), undefined);
    for (const bad of ['server { listen 1; }', 'upstream x { server 1.2.3.4:1; }', 'proxy_pass 1.2.3.4:22;', 'add_header X a;', 'proxy_timeout $x;']) {
      assert.notEqual(snippetRefusal(bad, 'safe', 'stream'), undefined, bad);
    }
    assert.match(snippetRefusal('proxy_timeout 30s;', 'safe', 'location') ?? '', /not allowed in a location snippet/);
  });
  void it('auth-keepalive*: validated no-ops; affinity-canary-behavior: sticky or legacy, legacy sent to the balancer', () => {
    assert.deepEqual(read({ 'auth-keepalive': '10', 'auth-keepalive-requests': '-1', 'auth-keepalive-timeout': '0', 'auth-keepalive-share-vars': 'true' }).errors, []);
    assert.deepEqual(
      read({ 'auth-keepalive': 'ten', 'auth-keepalive-share-vars': 'yes' }).errors.map((e) => e.annotation),
      [`${P}/auth-keepalive`, `${P}/auth-keepalive-share-vars`],
    );
    assert.deepEqual(read({ 'affinity-canary-behavior': 'legacy' }).errors, []);
    assert.deepEqual(
      read({ 'affinity-canary-behavior': 'random' }).errors.map((e) => e.annotation),
      [`${P}/affinity-canary-behavior`],
    );
    const affinity = (b?: string) => read({ affinity: 'cookie', ...(b !== undefined ? { 'affinity-canary-behavior': b } : {}) }).settings.upstream?.affinity?.canaryBehavior;
    assert.deepEqual([affinity(), affinity('sticky'), affinity('legacy')], [undefined, undefined, 'legacy']);
  });
  void it("proxy-max-temp-file-size: g is written in m; below the buffer size (the ConfigMap's too) refused", () => {
    assert.equal(read({ 'proxy-max-temp-file-size': '4g' }).settings.location.maxTempFileSize, '4096m');
    const withCm = parseAnnotations({ [`${P}/proxy-max-temp-file-size`]: '8k' }, { prefix: P, riskLevel: 'Low', allowSnippets: false, namespace: 'ns', proxyBuffers: { size: '16k', number: 4 } });
    assert.match(withCm.errors[0]?.reason ?? '', /below the proxy buffer size 16k/);
  });
});

void describe('ConfigMap keys', () => {
  void it('ssl-session-ticket-key: 48 or 80 bytes of base64, kept out of JSON; others refused without the value', () => {
    const key = randomBytes(48).toString('base64');
    const ok = parseConfigMap({ 'ssl-session-ticket-key': key });
    assert.deepEqual([ok.errors, JSON.stringify(ok.settings).includes(key)], [[], false]);
    const bad = parseConfigMap({ 'ssl-session-ticket-key': randomBytes(40).toString('base64') });
    assert.deepEqual(
      bad.errors.map((e) => e.reason),
      ['not base64 of 48 or 80 bytes (40 bytes; the value is not shown)'],
    );
  });
  void it('syslog-host is an IP address; an empty no-auth-locations is none; global-allowed-response-headers is a list of names', () => {
    assert.deepEqual(
      parseConfigMap({ 'syslog-host': 'logs.example' }).errors.map((e) => e.key),
      ['syslog-host'],
    );
    assert.equal(parseConfigMap({ 'enable-syslog': 'true', 'syslog-host': '::1', 'syslog-port': '5140' }).errors.length, 0);
    assert.deepEqual(
      parseConfigMap({ 'enable-syslog': 'true' }).errors.map((e) => e.key),
      ['syslog-host'],
    );
    assert.deepEqual(parseConfigMap({ 'no-auth-locations': '' }).settings.noAuthLocations, []);
    assert.deepEqual(parseConfigMap({ 'global-allowed-response-headers': 'X-A, X-B' }).settings.allowedResponseHeaders, ['X-A', 'X-B']);
    assert.deepEqual(
      parseConfigMap({ 'global-allowed-response-headers': 'X-A;' }).errors.map((e) => e.key),
      ['global-allowed-response-headers'],
    );
  });
});

void describe('ssl-dh-param', () => {
  /** A PEM of DER SEQUENCE { INTEGER p, INTEGER g }: p of `bytes` bytes (top bit clear after the 0 pad), g. */
  const pem = (bytes: number, g: number, tail: number[] = []): string => {
    const int = (v: number[]) => [0x02, ...(v.length < 128 ? [v.length] : [0x82, v.length >> 8, v.length & 0xff]), ...v];
    const body = [...int([0x00, ...Array<number>(bytes).fill(0xff)]), ...int([g]), ...tail];
    const der = Buffer.from([0x30, 0x82, body.length >> 8, body.length & 0xff, ...body]);
    return `-----BEGIN DH PARAMETERS-----\n${der.toString('base64').replace(/(.{64})/g, '$1\n')}\n-----END DH PARAMETERS-----\n`;
  };
  const read = (text: string) => readDhParam([{ metadata: { name: 'dh', namespace: 'ns' }, stringData: { 'dhparam.pem': text } }], { kind: 'Secret', namespace: 'ns', name: 'dh' });
  void it('takes a 2048-bit prime and a small generator; refuses short primes, bad generators, trailing bytes and other PEM', () => {
    const ok = read(pem(256, 2));
    assert.deepEqual(ok.ok ? ok.value.bits : ok.reason, 2048);
    assert.match(read(pem(128, 2)).ok ? '' : (read(pem(128, 2)) as { reason: string }).reason, /1024 bits/);
    assert.equal(read(pem(256, 1)).ok, false);
    assert.equal(read(pem(256, 2, [0x05, 0x00])).ok, false);
    assert.equal(read('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n').ok, false);
    assert.equal(readDhParam([], { kind: 'Secret', namespace: 'ns', name: 'dh' }).ok, false);
  });
});
