// Name and path validation: the first refusal point for values that would break or widen nginx.conf.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkHost, checkPath, checkPathRelaxed, checkPortName, checkServiceName } from '../../src/model/names.js';

test("paths under /_portico are refused: they would collide with Portico's internal locations and fail nginx -t", () => {
  for (const p of ['/_portico', '/_portico_external_auth_abc', '/_portico/x']) {
    assert.match(checkPath(p) ?? '', /reserved/, p);
    assert.match(checkPathRelaxed(p) ?? '', /reserved/, p);
  }
  assert.equal(checkPath('/portico/_portico'), undefined);
});

test('hosts, service names and port names accept only their Kubernetes shapes', () => {
  assert.equal(checkHost('a.example.com'), undefined);
  assert.equal(checkHost('*.example.com'), undefined);
  for (const bad of ['*.com.*', 'a..b', 'A.example.com', 'a b', 'a;b', '*', '10.0.0.1', `${'a'.repeat(64)}.com`]) assert.ok(checkHost(bad), bad);
  assert.equal(checkServiceName('web-1'), undefined);
  for (const bad of ['1web', 'Web', 'web_1', 'web.x', '']) assert.ok(checkServiceName(bad), bad);
  assert.equal(checkPortName('http'), undefined);
  for (const bad of ['80', 'a--b', 'x'.repeat(16), 'h;p']) assert.ok(checkPortName(bad), bad);
});
