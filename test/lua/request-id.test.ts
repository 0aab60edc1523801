// Real nginx + portico.request_id as Portico renders it (docs/adr/0015): the server's set_by_lua gives each request
// 32 hex digits, distinct from request to request; an internal redirect to a URI (error_page), which runs the
// server's rewrite phase again, and an auth subrequest, which shares its parent's variables, keep the request's id.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { type Nginx, freePort, request, startNginx } from './harness.js';

const HEX32 = /^[0-9a-f]{32}$/;

void describe('lua request id', () => {
  let nginx: Nginx;
  let port = 0;

  before(async () => {
    port = await freePort();
    nginx = await startNginx({
      workers: 1,
      httpExtra: `
    map $host $portico_request_id { default $request_id; }
    server {
        listen 127.0.0.1:${port};
        set_by_lua_block $portico_request_id { return require("portico.request_id").value() }
        location = /id { return 200 "$portico_request_id"; }
        location = /redirected { set $portico_first $portico_request_id; error_page 404 = /after; return 404; }
        location = /after { return 200 "$portico_request_id $portico_first"; }
        location = /guarded { auth_request /check; content_by_lua_block { ngx.print(ngx.var.portico_request_id, " ", ngx.var.portico_checked) } }
        location = /check { internal; set $portico_checked $portico_request_id; return 204; }
    }`,
    });
  });

  after(async () => {
    await nginx.stop();
  });

  void it('gives every request 32 hex digits, none twice across pool refills', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 300; i++) ids.push((await request(port, '/id')).body);
    assert.deepEqual(
      ids.filter((id) => !HEX32.test(id)),
      [],
    );
    assert.equal(new Set(ids).size, ids.length);
  });

  void it('keeps the id across an internal redirect to a URI (error_page runs the server rewrite phase again)', async () => {
    const r = await request(port, '/redirected');
    assert.equal(r.status, 200);
    const [now, first] = r.body.split(' ');
    assert.match(first ?? '', HEX32);
    assert.equal(now, first);
  });

  void it('gives an auth subrequest the id of its request', async () => {
    const r = await request(port, '/guarded');
    assert.equal(r.status, 200);
    const [main, sub] = r.body.split(' ');
    assert.match(main ?? '', HEX32);
    assert.equal(sub, main);
  });

  void it('logs no Lua error', () => {
    assert.doesNotMatch(nginx.errorLog(), /\[error\]|lua entry thread aborted|failed to run set_by_lua/);
  });
});
