// ConfigMap keys of model/settings-tls.ts: parsing and refusals, what the TLS model gets, and the nginx.conf lines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseConfigMap } from '../../src/annotations/configmap.js';
import { tlsSettingsOf } from '../../src/model/settings.js';
import { DEFAULT_TLS_SETTINGS, type TlsModel } from '../../src/model/tls-types.js';
import { withoutAuth } from '../../src/render/auth.js';
import { tlsHttpLines, tlsServerLines } from '../../src/render/tls.js';

const model = (settings: TlsModel['settings']): TlsModel => ({ settings, certificates: [], hosts: [], defaultCertificate: undefined, servers: [], ingresses: {} });

void test("defaults leave the TLS model as it was (model fixtures unchanged) and render ingress-nginx's session lines", () => {
  const g = parseConfigMap({}).settings;
  assert.deepEqual(tlsSettingsOf(g), DEFAULT_TLS_SETTINGS);
  const lines = tlsHttpLines(model(tlsSettingsOf(g)), '/w');
  assert.ok(lines.includes('    ssl_session_cache shared:SSL:10m; ssl_session_timeout 10m; ssl_session_tickets off;'));
  assert.ok(lines.includes('    ssl_buffer_size 4k;'));
  assert.ok(!tlsServerLines(model(tlsSettingsOf(g)), '_', '/w').some((l) => l.includes('ssl_reject_handshake')));
});

void test('ssl-session-*, ssl-buffer-size and ssl-reject-handshake reach nginx.conf', () => {
  const r = parseConfigMap({ 'ssl-session-cache': 'false', 'ssl-session-tickets': 'true', 'ssl-buffer-size': '16k', 'ssl-reject-handshake': 'true' });
  assert.deepEqual(r.errors, []);
  const tls = model(tlsSettingsOf(r.settings));
  const lines = tlsHttpLines(tls, '/w');
  assert.ok(lines.includes('    ssl_session_tickets on;'));
  assert.ok(!lines.some((l) => l.includes('ssl_session_cache')), "no cache: nginx's default (none), as ingress-nginx renders it");
  assert.ok(lines.includes('    ssl_buffer_size 16k;'));
  assert.ok(tlsServerLines(tls, '_', '/w').includes('        ssl_reject_handshake on;'));
  assert.ok(!tlsServerLines(tls, 'a.test', '/w').some((l) => l.includes('ssl_reject_handshake')), 'only the catch-all server');
});

void test('hostile or impossible values are refused and keep the previous value', () => {
  for (const [key, raw] of [
    ['ssl-session-cache-size', '10m; include /etc/passwd'],
    ['ssl-session-cache-size', '1k'],
    ['ssl-session-timeout', '0'],
    ['ssl-session-timeout', '10m;'],
    ['ssl-buffer-size', '4g'],
    ['no-tls-redirect-locations', '/a, b'],
    ['no-auth-locations', '/x;{'],
    ['proxy-add-original-uri-header', 'yes'],
  ] as const) {
    const r = parseConfigMap({ [key]: raw });
    assert.equal(r.errors.length, 1, `${key}: ${raw}`);
    assert.equal(r.errors[0]?.key, key);
  }
  const r = parseConfigMap({ 'no-tls-redirect-locations': ' /a , /b ,', 'no-auth-locations': '/c' });
  assert.deepEqual(r.errors, []);
  assert.deepEqual(tlsSettingsOf(r.settings).noRedirectLocations, ['/a', '/b']);
  assert.deepEqual(r.settings.noAuthLocations, ['/c']);
});

void test('withoutAuth drops basic and external auth only: access lists stay, a denied auth still answers 503', () => {
  const external = { url: 'http://a/', redirectParam: 'rd', responseHeaders: [], cacheDuration: [], alwaysSetCookie: false, global: true };
  assert.deepEqual(withoutAuth({ auth: { enableGlobal: true, external, allow: ['10.0.0.0/8'] } }), { auth: { enableGlobal: true, allow: ['10.0.0.0/8'] } });
  const denied = { auth: { enableGlobal: true, external, denied: 'no Secret' } };
  assert.equal(withoutAuth(denied), denied);
});
