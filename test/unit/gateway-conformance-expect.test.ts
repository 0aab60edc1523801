// The conformance suite's expected-response check, written again in test/gateway-conformance/expect.ts: each check
// refuses the round trip that differs in what it checks, and accepts the one that does not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mismatch, type Captured, type Expected } from '../gateway-conformance/expect.js';

const echo = { path: '/a?x=1', host: 'h.test', method: 'GET', proto: 'HTTP/1.1', headers: { version: ['one'] }, namespace: 'ns', pod: 'infra-backend-v1-pod-0' };
const ok: Captured = { status: 200, headers: { 'x-resp': ['v'] }, echo };
const base: Expected = { request: { host: 'h.test', path: '/a?x=1', headers: { Version: 'one' } }, backend: 'infra-backend-v1', namespace: 'ns' };

void test('a round trip that meets the expectation passes', () => {
  assert.equal(mismatch(base, ok), undefined);
  assert.equal(mismatch({ ...base, response: { headers: { 'X-Resp': 'v' }, absentHeaders: ['x-gone'] } }, ok), undefined);
});

void test('each difference is named', () => {
  assert.match(mismatch(base, { ...ok, status: 404 }) ?? '', /status 404/);
  assert.match(mismatch({ ...base, backend: 'infra-backend-v2' }, ok) ?? '', /pod/);
  assert.match(mismatch({ ...base, namespace: 'other' }, ok) ?? '', /namespace/);
  assert.match(mismatch({ ...base, request: { ...base.request, path: '/b' } }, ok) ?? '', /path/);
  assert.match(mismatch({ ...base, request: { ...base.request, headers: { Version: 'two' } } }, ok) ?? '', /header version/i);
  assert.match(mismatch({ ...base, expectedRequest: { path: '/a?x=1', absentHeaders: ['Version'] } }, ok) ?? '', /saw header Version/);
  assert.match(mismatch({ ...base, response: { absentHeaders: ['X-Resp'] } }, ok) ?? '', /present/);
  assert.match(mismatch({ request: { path: '/' }, response: { statusCode: 404 } }, ok) ?? '', /status 200/);
});

void test('redirects: host, scheme, port and path of Location', () => {
  const moved = (location: string): Captured => ({ status: 302, headers: { location: [location] }, echo: undefined });
  const e: Expected = { request: { path: '/p' }, response: { statusCode: 302 }, redirectRequest: { host: 'example.org' } };
  assert.equal(mismatch(e, moved('http://example.org/p')), undefined);
  assert.equal(mismatch(e, moved('http://example.org:80/p')), undefined);
  assert.match(mismatch(e, moved('http://example.org:8080/p')) ?? '', /port/);
  assert.match(mismatch(e, moved('https://example.org/p')) ?? '', /scheme/);
  assert.match(mismatch(e, moved('http://example.org/q')) ?? '', /path/);
  assert.match(mismatch({ ...e, redirectRequest: { port: '8083' } }, moved('http://example.org:80/p')) ?? '', /port/);
});
