// Snippets parsed as nginx reads them (src/model/snippets): the real-world corpus is accepted under --snippet-mode=safe, every
// hostile case (code, files, other upstreams, blocks that close the location, quoting and escape tricks, comments
// hiding a brace) is refused with the directive and its line; `any` checks only the structure; the renderer agrees.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseAnnotations } from '../../src/annotations/parse.js';
import { snippetRefusal } from '../../src/model/snippets/check.js';
import { snippet } from '../../src/render/escape.js';

/** Real-world snippets: headers added or hidden, CORS by hand, a redirect behind a proxy, more_set_headers, rewrites. */
const REAL_WORLD: readonly string[] = [
  'add_header X-Frame-Options DENY;\n\tadd_header X-Host $host;\n',
  'more_set_headers "X-Served-By: portico";\nmore_clear_headers X-Powered-By Server;',
  'more_set_input_headers "X-Tenant: blue";',
  'proxy_set_header X-Request-Start "t=${msec}";',
  'proxy_hide_header X-Powered-By;',
  'if ($http_x_forwarded_proto != "https") {\n  return 301 https://$host$request_uri;\n}',
  'if ($request_method = OPTIONS) {\n  add_header Access-Control-Allow-Origin "$http_origin" always;\n  add_header Access-Control-Allow-Methods "GET, POST, OPTIONS" always;\n  return 204;\n}\nadd_header Access-Control-Allow-Origin "$http_origin" always;',
  'rewrite ^/old/(.*)$ /new/$1 break;',
  'set $tenant blue;\nadd_header X-Tenant $tenant;',
  'expires 1h;\ngzip on;\ngzip_types text/plain application/json;',
  'proxy_read_timeout 300s; proxy_send_timeout 300s; proxy_intercept_errors on; error_page 404 = /404.html;',
  'if ($http_user_agent ~* "(curl|wget)") { return 403; }',
  "return 200 'a\\'}';",
];

const R = /^snippet refused: /;
/** [snippet, why safe refuses it, why any refuses it (undefined: accepted)]. */
const HOSTILE: readonly [string, RegExp, RegExp | undefined][] = [
  ['content_by_lua_block { os.execute("id") }', /content_by_lua_block|unexpected/, /unexpected|where a directive name belongs/],
  ['access_by_lua "os.execute(1)";', /directive access_by_lua at line 1 is not on the allowlist/, undefined],
  ['set_by_lua $x "return 1";', /set_by_lua at line 1 is not on the allowlist/, undefined],
  ['add_header A b;\ninclude /etc/passwd;', /directive include at line 2 is not on the allowlist/, undefined],
  ['load_module /tmp/x.so;', /directive load_module at line 1/, undefined],
  ['alias /var/run/secrets/;', /directive alias at line 1/, undefined],
  ['root /;', /directive root at line 1/, undefined],
  ['proxy_pass http://127.0.0.1:10246;', /directive proxy_pass at line 1/, undefined],
  ['grpc_pass 127.0.0.1:10246;', /directive grpc_pass at line 1/, undefined],
  ['} server { listen 8080; }', /"}" closes a block the snippet did not open at line 1/, /closes a block/],
  ['return 200; } location /x { return 200;', /closes a block the snippet did not open at line 1/, /closes a block/],
  ['return 200 "}"; } location /evil {', /closes a block the snippet did not open at line 1/, /closes a block/],
  ['return 200 a\\}; }', /closes a block the snippet did not open at line 1/, /closes a block/],
  ['return 200 x;#\n}', /closes a block the snippet did not open at line 2/, /closes a block/],
  ['add_header X-A b; # }\n}', /closes a block the snippet did not open at line 2/, /closes a block/],
  ['return 200 "a;\n} location /x {', /a quoted string is not closed at line 1/, /not closed/],
  ['add_header X-A "b"c;', /unexpected "c" after a quoted string/, /after a quoted string/],
  ['add_header X-A b;\r\n}', /a control character/, /a control character/],
  ['return 200 a\u0000b;', /a control character/, /a control character/],
  ['add_header X-A b', /not ended by ";"/, /not ended by ";"/],
  ['location /x { return 200; }', /directive location at line 1 is not on the allowlist/, undefined],
  ['if (-f /etc/passwd) { return 200; }', /directive if at line 1: the condition/, undefined],
  ['set $portico_backend other;', /\$portico_backend is Portico's own/, /\$portico_backend is Portico's own/],
  ['add_header X-Up $PORTICO_BACKEND;', /Portico's own/, /Portico's own/],
  ['add_header X-Root $document_root;', /\$document_root is not on the list of variables/, undefined],
  ['set $host evil.test;', /\$host is nginx's or Portico's/, undefined],
  ['rewrite ^(a+)+$ /x break;', /regular expression .* is refused/, undefined],
  ['rewrite ^/a /b evil;', /one of last, break, redirect, permanent/, undefined],
  ['if ($uri) { proxy_set_header X-A b; }', /not allowed in an if block/, undefined],
  ['add_header "X-A" "b" always extra;', /takes 2 to 3 arguments/, undefined],
  ['gzip_static on;', /directive gzip_static at line 1/, undefined],
  ['x'.repeat(65_537), /longer than 65536/, /longer than 65536/],
];

test('the real-world corpus is accepted in safe mode and rendered as its own lines', () => {
  for (const text of REAL_WORLD) {
    assert.equal(snippetRefusal(text, 'safe', 'location'), undefined, text);
    assert.deepEqual(snippet(text), text.split('\n'));
  }
});

test('every hostile snippet is refused in safe mode with the directive and its line; any mode checks the structure only', () => {
  for (const [text, safe, any] of HOSTILE) {
    assert.match(snippetRefusal(text, 'safe') ?? '', R, text);
    assert.match(snippetRefusal(text, 'safe') ?? '', safe, text);
    if (any === undefined) assert.equal(snippetRefusal(text, 'any'), undefined, text);
    else assert.match(snippetRefusal(text, 'any') ?? '', any, text);
    if (any !== undefined) assert.throws(() => snippet(text), /refusing to render the snippet/);
  }
  assert.match(snippetRefusal('add_header X-A b;', 'refuse') ?? '', /--snippet-mode=refuse takes no snippets/);
});

test('contexts: http takes map; server takes if; nothing is safe in main or stream', () => {
  assert.equal(snippetRefusal('map $http_x_env $env_tag { default prod; staging stage; }', 'safe', 'http'), undefined);
  assert.match(snippetRefusal('map $http_x_env $env_tag { include /etc/passwd; }', 'safe', 'http') ?? '', /a map entry/);
  assert.match(snippetRefusal('map $uri $x { default a; }', 'safe', 'location') ?? '', /not allowed in a location snippet/);
  assert.equal(snippetRefusal('if ($host = old.test) { return 308 https://new.test$request_uri; }', 'safe', 'server'), undefined);
  assert.match(snippetRefusal('worker_rlimit_nofile 1024;', 'safe', 'main') ?? '', /not on the allowlist/);
  assert.match(snippetRefusal('add_header X-A b;', 'safe', 'stream') ?? '', /not allowed in a stream snippet/);
});

test('the annotation parser applies the mode once allow-snippet-annotations is on: safe by default, any needs Critical, refuse takes none', () => {
  const P = 'p';
  const base = { prefix: P, riskLevel: 'High' as const, allowSnippets: true, namespace: 'ns' };
  const ok = parseAnnotations({ 'p/configuration-snippet': 'add_header X-A b;' }, base);
  assert.deepEqual([ok.errors, ok.settings.location.configurationSnippet], [[], 'add_header X-A b;']);
  assert.match(parseAnnotations({ 'p/configuration-snippet': 'proxy_pass http://x;' }, base).errors[0]?.reason ?? '', /directive proxy_pass at line 1 is not on the allowlist/);
  assert.match(parseAnnotations({ 'p/server-snippet': 'add_header X-A b;' }, { ...base, snippetMode: 'refuse' }).errors[0]?.reason ?? '', /--snippet-mode=refuse/);
  // allow-snippet-annotations at its default (false): the snippet is ignored with a Warning naming the key, in safe and any modes.
  for (const snippetMode of ['safe', 'any'] as const) {
    const off = parseAnnotations({ 'p/server-snippet': 'add_header X-A b;', 'p/ssl-redirect': 'false' }, { ...base, allowSnippets: false, snippetMode });
    assert.deepEqual([off.errors, off.settings.server.serverSnippet, off.settings.location.sslRedirect], [[], undefined, false], snippetMode);
    assert.deepEqual(
      off.warnings.map((w) => w.annotation),
      ['p/server-snippet'],
    );
    assert.match(off.warnings[0]?.reason ?? '', /allow-snippet-annotations is true/);
  }
  assert.match(parseAnnotations({ 'p/server-snippet': 'root /;' }, { ...base, snippetMode: 'any', allowSnippets: true }).errors[0]?.reason ?? '', /rated Critical/);
  assert.deepEqual(parseAnnotations({ 'p/server-snippet': 'root /;' }, { ...base, snippetMode: 'any', allowSnippets: true, riskLevel: 'Critical' }).errors, []);
  assert.match(parseAnnotations({ 'p/auth-url': 'http://a.test/', 'p/auth-snippet': 'include /etc/passwd;' }, base).errors[0]?.reason ?? '', /directive include at line 1/);
  assert.match(parseAnnotations({ 'p/configuration-snippet': 'add_header X-A b;' }, { ...base, riskLevel: 'Medium' }).errors[0]?.reason ?? '', /rated High \(a snippet under --snippet-mode=safe\)/);
});
