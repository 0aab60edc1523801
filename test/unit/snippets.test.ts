// The snippet check (src/model/snippets.ts): accepted and refused snippets, with the whole message, including the
// bypasses of the old brace count (quoted, escaped and commented braces) and what parse.ts and the renderer do with it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseAnnotations } from '../../src/annotations/parse.js';
import { snippetRefusal } from '../../src/model/snippets.js';
import { snippet } from '../../src/render/escape.js';

const R = (what: string): string =>
  `snippet refused: ${what}; until then, snippets hold only simple directives "name args;" (the snippet parser of the compatibility issue will allow more)`;
const BRACE = 'a brace (it opens or closes a block outside the snippet\'s own)';
const QUOTE = 'a quote (a quoted brace or ";" is hidden from this check)';
const HASH = '"#" (a comment hides the rest of its line from this check)';
const SLASH = 'a backslash (it escapes a brace, quote or ";")';
const CONTROL = 'a control character (only newline and tab are allowed)';
const FILE = 'reads or writes a file';
const CODE = 'loads or runs code';
const PASS = 'picks an upstream (a unix socket or Portico\'s own ports would bypass the target policy); name backends in the Ingress';

const CASES: [string, string | undefined][] = [
  // accepted: simple directives, variables, several lines, tabs, non-ASCII lookalikes (nginx gives them no meaning)
  ['', undefined],
  ['   \n', undefined],
  ['return 200;', undefined],
  ['add_header X-Frame-Options DENY;\n\tadd_header X-Host $host;\n', undefined],
  ['more_set_headers X-A:b;  proxy_cookie_path / /app;', undefined],
  ['rewrite ^/old/(.*)$ /new/$1 break;', undefined],
  ['proxy_set_header X-Tenant blue;;', undefined],
  ['add_header X-A \uff5bfullwidth\uff5d \u201cquoted\u201d;', undefined],
  // braces: bare, escaped, quoted, behind a comment, behind "${": the old check's bypasses
  ['} server { listen 8080; }', R(`${BRACE} at line 1, column 1`)],
  ['return 200; } location /x { return 200;', R(`${BRACE} at line 1, column 13`)],
  ['return 200 "}"; } location /evil {', R(`${QUOTE} at line 1, column 12`)],
  ["return 200 'a\\'}';", R(`${QUOTE} at line 1, column 12`)],
  ['return 200 a\\}; }', R(`${SLASH} at line 1, column 13`)],
  ['return 200 a\\;b;', R(`${SLASH} at line 1, column 13`)],
  ['return 200 x;#\n}', R(`${HASH} at line 1, column 14`)],
  ['add_header X a#b;', R(`${HASH} at line 1, column 15`)],
  ['return 200 x; # }', R(`${HASH} at line 1, column 15`)],
  ['# comment\nreturn 200;', R(`${HASH} at line 1, column 1`)],
  ['set $a ${host};', R('"${" (a variable in braces) at line 1, column 8')],
  // control characters: CR (nginx ends a token there), NUL, vertical tab, DEL, C1
  ['return 200;\r\n}', R(`${CONTROL} at line 1, column 12`)],
  ['return 200;\n}', R(`${BRACE} at line 2, column 1`)],
  ['return 200;\r\n', R(`${CONTROL} at line 1, column 12`)],
  ['return 200 a\u0000b;', R(`${CONTROL} at line 1, column 13`)],
  ['return 200;\u000b', R(`${CONTROL} at line 1, column 12`)],
  ['return\u007f 200;', R(`${CONTROL} at line 1, column 7`)],
  ['return\u0085 200;', R(`${CONTROL} at line 1, column 7`)],
  // the last directive must end: it would swallow Portico's next line
  ['add_header X-A b', R('it does not end with ";" (its last directive would swallow the next line Portico writes)')],
  ['return 200; deny', R('it does not end with ";" (its last directive would swallow the next line Portico writes)')],
  // Portico's own variables pick the backend
  ['set $portico_backend default-other-svc-80;', R('it names Portico\'s own variable at line 1, column 5 (it picks the backend and the log line)')],
  ['set $x $PORTICO_BACKEND;', R('it names Portico\'s own variable at line 1, column 8 (it picks the backend and the log line)')],
  // directives
  ['add_header A b;\ninclude /etc/passwd;', R(`directive include at line 2, column 1 ${CODE}`)],
  ['load_module /tmp/x.so;', R(`directive load_module at line 1, column 1 ${CODE}`)],
  ['content_by_lua_file /tmp/x.lua;', R(`directive content_by_lua_file at line 1, column 1 ${CODE}`)],
  ['lua_need_request_body on;', R(`directive lua_need_request_body at line 1, column 1 ${CODE}`)],
  ['access_by_lua_block;', R(`directive access_by_lua_block at line 1, column 1 ${CODE}`)],
  ['perl_set $x x;', R(`directive perl_set at line 1, column 1 ${CODE}`)],
  ['ssl_certificate /etc/ssl/k.pem;', R(`directive ssl_certificate at line 1, column 1 ${FILE}`)],
  ['ssl_certificate_key /etc/ssl/k.pem;', R(`directive ssl_certificate_key at line 1, column 1 ${FILE}`)],
  ['ssl_client_certificate /etc/ssl/ca.pem;', R(`directive ssl_client_certificate at line 1, column 1 ${FILE}`)],
  ['proxy_ssl_certificate_key /k;', R(`directive proxy_ssl_certificate_key at line 1, column 1 ${FILE}`)],
  ['auth_basic_user_file /etc/shadow;', R(`directive auth_basic_user_file at line 1, column 1 ${FILE}`)],
  ['client_body_temp_path /;', R(`directive client_body_temp_path at line 1, column 1 ${FILE}`)],
  ['root /;', R('directive root at line 1, column 1 serves or changes local files')],
  ['  alias /var/run/secrets/;', R('directive alias at line 1, column 3 serves or changes local files')],
  ['dav_methods PUT;', R('directive dav_methods at line 1, column 1 serves or changes local files')],
  ['proxy_store on;', R('directive proxy_store at line 1, column 1 stores responses in local files')],
  ['access_log /etc/cron.d/x;', R('directive access_log at line 1, column 1 writes a log file')],
  ['error_log /tmp/e debug;', R('directive error_log at line 1, column 1 writes a log file')],
  ['proxy_pass http://unix:/tmp/portico/unavailable.sock;', R(`directive proxy_pass at line 1, column 1 ${PASS}`)],
  ['grpc_pass 127.0.0.1:10246;', R(`directive grpc_pass at line 1, column 1 ${PASS}`)],
  ['user root;', R('directive user at line 1, column 1 changes the nginx process')],
  ['Return 200;', R('"Return" at line 1, column 1 is not a directive name')],
  ['return 200;\n=x;', R('"=x" at line 2, column 1 is not a directive name')],
  ['x'.repeat(65_537), R('it is longer than 65536 characters')],
];

test('snippets: accepted and refused, with the whole message', () => {
  assert.deepEqual(CASES.map(([text]) => [text, snippetRefusal(text)]), CASES);
});

test('the renderer refuses what the check refuses, and keeps an accepted snippet as its lines', () => {
  for (const [text, refusal] of CASES) {
    if (refusal === undefined) assert.deepEqual(snippet(text), text.split('\n'));
    else assert.throws(() => snippet(text), /refusing to render the snippet/);
  }
});

test('a refused snippet is a refused annotation, named with its reason', () => {
  const opts = { prefix: 'p', riskLevel: 'Critical' as const, allowSnippets: true, namespace: 'ns' };
  const bad = parseAnnotations({ 'p/configuration-snippet': 'return 200 "}";' }, opts);
  assert.deepEqual(bad.errors.map((e) => e.reason.includes(R(`${QUOTE} at line 1, column 12`))), [true]);
  const authBad = parseAnnotations({ 'p/auth-url': 'http://auth.example/check', 'p/auth-snippet': 'include /etc/passwd;' }, opts);
  assert.deepEqual(authBad.errors.map((e) => e.reason.includes(R(`directive include at line 1, column 1 ${CODE}`))), [true]);
  assert.deepEqual(parseAnnotations({ 'p/server-snippet': 'add_header X-A b;' }, opts).errors, []);
});
