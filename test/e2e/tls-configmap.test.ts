// End to end: the global ConfigMap's TLS keys (use-http2, ssl-protocols, ssl-redirect, http-redirect-code, hsts-*) reach nginx.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBackend, type Backend } from '../support/backends.js';
import { h2Get, httpsGet, makeCert } from '../support/certs.js';
import { get, startPortico, until, type Running } from '../support/portico.js';
import { hostIngress, tlsSecret, webObjects, writeManifests } from '../support/tls-manifests.js';

/** The TLS version a handshake limited to `version` agrees on, or the error's code. */
function handshake(port: number, version: 'TLSv1.2' | 'TLSv1.3'): Promise<string> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port, servername: 'a.test', rejectUnauthorized: false, minVersion: version, maxVersion: version });
    const timer = setTimeout(() => {
      s.destroy();
      resolve('timeout');
    }, 5000);
    s.once('secureConnect', () => {
      clearTimeout(timer);
      resolve(s.getProtocol() ?? 'none');
      s.end();
    });
    s.once('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve(err.code ?? 'error');
    });
  });
}

/** The ALPN protocol agreed when the client offers h2 and http/1.1. */
function alpn(port: number): Promise<string | false> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port, servername: 'a.test', rejectUnauthorized: false, ALPNProtocols: ['h2', 'http/1.1'] });
    const timer = setTimeout(() => {
      s.destroy();
      reject(new Error('ALPN handshake timed out'));
    }, 5000);
    s.once('secureConnect', () => {
      clearTimeout(timer);
      resolve(s.alpnProtocol ?? false);
      s.end();
    });
    s.once('error', (err: Error) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

describe('TLS settings from the global ConfigMap', () => {
  let dir = '';
  let fixtures = '';
  let backend: Backend;
  let portico: Running;
  let objects: unknown[] = [];
  const configMap = (data: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'portico', namespace: 'default' }, data });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'portico-tlscm-'));
    fixtures = mkdtempSync(join(tmpdir(), 'portico-tlscm-certs-'));
    backend = await startBackend('web');
    objects = [...webObjects(backend.port), tlsSecret('a-tls', makeCert(fixtures, 'a.test', { sans: ['a.test'] })), hostIngress('a', 'a.test', { tls: [{ hosts: ['a.test'], secretName: 'a-tls' }] })];
    writeManifests(dir, [...objects, configMap({ 'use-http2': 'false', 'ssl-protocols': 'TLSv1.3', 'hsts-max-age': '600', 'hsts-include-subdomains': 'false', 'ssl-redirect': 'false' })]);
    portico = await startPortico(['--manifests', dir, '--configmap', 'default/portico']);
  });

  after(async () => {
    await portico?.stop();
    await backend.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(fixtures, { recursive: true, force: true });
  });

  test('use-http2 false, TLSv1.3 only, HSTS max-age 600 without includeSubDomains, no redirect', async () => {
    assert.equal(await alpn(portico.https), 'http/1.1');
    assert.equal(await handshake(portico.https, 'TLSv1.3'), 'TLSv1.3');
    assert.notEqual(await handshake(portico.https, 'TLSv1.2'), 'TLSv1.2');
    const r = await httpsGet(portico.https, 'a.test', '/');
    assert.equal(r.headers['strict-transport-security'], 'max-age=600');
    assert.equal((await get(portico.http, 'a.test', '/')).status, 200, 'ssl-redirect false: plain HTTP is served');
  });

  test('the defaults come back when the keys are removed: h2, TLS 1.2, HSTS of a year, 308 redirect', async () => {
    writeManifests(dir, [...objects, configMap({})]);
    await until('the redirect is back', async () => (await get(portico.http, 'a.test', '/')).status === 308, 5000);
    assert.equal((await h2Get(portico.https, 'a.test', '/')).alpn, 'h2');
    assert.equal(await handshake(portico.https, 'TLSv1.2'), 'TLSv1.2');
    assert.equal((await httpsGet(portico.https, 'a.test', '/')).headers['strict-transport-security'], 'max-age=31536000; includeSubDomains');
  });

  test("http-redirect-code sets the redirect's status; a code ingress-nginx does not allow is refused", async () => {
    writeManifests(dir, [...objects, configMap({ 'http-redirect-code': '301' })]);
    await until('301 redirect', async () => (await get(portico.http, 'a.test', '/')).status === 301, 5000);
    const r = await get(portico.http, 'a.test', '/p?q=1');
    assert.equal(r.headers.location, 'https://a.test/p?q=1');
    writeManifests(dir, [...objects, configMap({ 'http-redirect-code': '200' })]);
    await until('the refusal logged', () => portico.output.some((l) => l.includes('http-redirect-code') && l.includes('keeping the previous value')), 5000);
    assert.equal((await get(portico.http, 'a.test', '/')).status, 301, 'the previous value stays');
  });

  test('a bad value is refused with a log line and the key keeps its previous value', async () => {
    writeManifests(dir, [...objects, configMap({ 'ssl-protocols': 'TLSv1.3; include /etc/passwd' })]);
    await until('the refusal logged', () => portico.output.some((l) => l.includes('ssl-protocols') && l.includes('keeping the previous value')), 5000);
    assert.equal(await handshake(portico.https, 'TLSv1.2'), 'TLSv1.2');
  });
});
