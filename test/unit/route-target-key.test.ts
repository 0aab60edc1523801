// A route table host lists each distinct target once (render/route-entries.ts hostOf), by targetKey: two targets
// that differ in any field must never share a key, or one host's paths would be sent to the other's backend.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { targetKey, type RouteTarget } from '../../src/render/route-entries.js';

// Required: a field added to RouteTarget fails to compile here until this test (and targetKey) has it.
const FULL: Required<RouteTarget> = {
  backend: 'team-1_app_80',
  canary: 'team-1/app/0',
  redirect: 308,
  denied: false,
  metrics: 'team-1|app|app|h1.test|/',
  rewrite: false,
  profile: '@portico_p1',
  cookiePath: '/',
  ingress: 'team-1|app|app|80|/',
  maxBody: 1048576,
};

/** `t` with one field changed to another value of its type. */
function changed(t: Required<RouteTarget>, field: keyof RouteTarget): RouteTarget {
  const v = t[field];
  const other = typeof v === 'boolean' ? !v : typeof v === 'number' ? v + 1 : `${v}x`;
  return { ...t, [field]: other };
}

test('targets that differ in any one field have different keys', () => {
  for (const field of Object.keys(FULL) as (keyof RouteTarget)[]) {
    assert.notEqual(targetKey(changed(FULL, field)), targetKey(FULL), field);
  }
  assert.equal(targetKey({ ...FULL }), targetKey(FULL));
});

test('an absent optional field is not the empty string, and text cannot move from one field to the next', () => {
  const bare: RouteTarget = { backend: FULL.backend, canary: FULL.canary, redirect: FULL.redirect, denied: FULL.denied, metrics: FULL.metrics, rewrite: FULL.rewrite, profile: FULL.profile };
  assert.notEqual(targetKey({ ...bare, cookiePath: '' }), targetKey(bare));
  assert.notEqual(targetKey({ ...bare, ingress: '' }), targetKey(bare));
  assert.notEqual(targetKey({ ...bare, maxBody: 0 }), targetKey(bare));
  assert.notEqual(targetKey({ ...bare, ingress: '1', maxBody: 0 }), targetKey({ ...bare, ingress: '10' }));
  assert.notEqual(targetKey({ ...FULL, backend: 'ab', canary: 'c' }), targetKey({ ...FULL, backend: 'a', canary: 'bc' }));
  assert.notEqual(targetKey({ ...FULL, metrics: 'm1', profile: '' }), targetKey({ ...FULL, metrics: 'm', profile: '1' }));
});
