// The one escaping helper: quoted strings stay one nginx token; anything validation should have refused is refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { quote, quoteLiteral, ident, int, serverName } from '../../src/render/escape.js';
import { UnsafeValueError } from '../../src/errors.js';

test('quote escapes backslashes and quotes so a value stays one string', () => {
  assert.equal(quote('/plain'), '"/plain"');
  assert.equal(quote('a"b'), '"a\\"b"');
  assert.equal(quote('a\\"; return 200; #'), '"a\\\\\\"; return 200; #"');
});

test('quote refuses control characters, $ variables and huge values', () => {
  for (const bad of ['a\nb', 'a\rb', 'a\u0000b', 'a\tb', '\u007f', '$host', 'x${y}', 'x'.repeat(5000)]) {
    assert.throws(() => quote(bad), UnsafeValueError, JSON.stringify(bad.slice(0, 20)));
  }
});

test('identifiers, numbers and server names accept only their own shapes', () => {
  assert.equal(ident('default_web_80'), 'default_web_80');
  assert.throws(() => ident('a b'), UnsafeValueError);
  assert.throws(() => ident('a;b'), UnsafeValueError);
  assert.equal(int(8080), '8080');
  assert.throws(() => int(-1), UnsafeValueError);
  assert.throws(() => int(1.5), UnsafeValueError);
  assert.equal(serverName('foo.example.com'), '"foo.example.com"');
  assert.equal(serverName('*.example.com'), '"~^[^.]+\\\\.example\\\\.com$"');
  assert.throws(() => serverName('evil.com;'), UnsafeValueError);
  assert.equal(quoteLiteral('~^a$'), '"~^a$"');
});
