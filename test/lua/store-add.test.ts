// Real nginx + apply/lua-store.ts: what goes to Lua before and beside a reload (docs/adr/0052). What the reload brings
// goes as a delta that adds and removes nothing; what is too large for a delta is not sent then, unless the caller asks
// for the whole union of what Lua holds and what comes (the push beside the reload): every backend Lua held is still
// served after it, and the push after the reload is the delta that removes what the new configuration dropped.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PushRejectedError } from '../../src/errors.js';
import { BACKENDS, LuaStore, type StoreKind } from '../../src/apply/lua-store.js';
import type { Nginx as NginxProcess } from '../../src/nginx/process.js';
import { rejectedItems } from '../../src/nginx/process.js';
import { backendsText } from '../../src/render/lua-payload.js';
import { quietLogger } from '../support/quiet-log.js';
import { type Backend, type Nginx, endpointsOf, proxiedLocation, startBackend, startNginx, tally } from './harness.js';

/** The one call LuaStore makes of nginx (pushRaw), over the harness's POST with its token: 409 as Portico's client throws it. */
function client(nginx: Nginx, bodies: string[]): NginxProcess {
  const pushRaw = async (what: string, body: string): Promise<ReturnType<typeof rejectedItems>> => {
    bodies.push(`${what} ${body}`);
    const res = await nginx.post(`/configuration/${what}`, body);
    if (res.status < 200 || res.status > 299) throw new PushRejectedError(res.status, `POST /configuration/${what} answered ${res.status}: ${res.body}`);
    return rejectedItems(res.body);
  };
  // only pushRaw is called (apply/lua-store.ts); the rest of the process class has nothing to do here
  return { pushRaw } as unknown as NginxProcess;
}

const entry = (name: string, b: Backend): string => JSON.stringify({ name, endpoints: endpointsOf(b) });

void describe('LuaStore.add: before and beside a reload', () => {
  let nginx: Nginx;
  let a: Backend;
  let b: Backend;
  const bodies: string[] = [];
  const served = async (path: string): Promise<string[]> => [...(await tally(nginx.port, 2, path)).keys()];

  before(async () => {
    a = await startBackend('a');
    b = await startBackend('b');
    nginx = await startNginx({ locations: proxiedLocation('/', 'web', { hooks: false }) + proxiedLocation('/api', 'api', { hooks: false }) });
  });

  after(async () => {
    await nginx.stop();
    await a.close();
    await b.close();
  });

  void it('a union too large for a delta goes whole only when asked; nothing held is removed; the next push is a delta', async () => {
    // bounds no delta that sets a backend fits (about 90 bytes), as 100,000 backends overflow the real ones at a first
    // whole sync; a delta that removes one (29 bytes) does
    const tight: StoreKind = { ...BACKENDS, maxDeltaBytes: 40 };
    const store = new LuaStore(client(nginx, bodies), tight, quietLogger());
    const web = new Map([['web', entry('web', a)]]);
    await store.push(() => backendsText(web), web);
    assert.deepEqual(await served('/'), ['a']);
    assert.deepEqual(await served('/api'), ['status 503'], 'no backend api yet');

    // two new backends, so the removal of one after the reload is a delta worth sending (BACKENDS.worth: half at most)
    const api = new Map([
      ['api', entry('api', b)],
      ['api2', entry('api2', b)],
    ]);
    const posted = bodies.length;
    assert.equal(await store.add(api), 'not added', 'too large for a delta, and no whole asked for');
    assert.equal(bodies.length, posted, 'nothing was posted');
    assert.deepEqual(await served('/api'), ['status 503']);

    assert.equal(await store.add(api, { whole: true }), 'added');
    assert.match(bodies.at(-1) ?? '', /^backends\?id=\S+ \[/, 'one whole list');
    assert.deepEqual(await served('/api'), ['b']);
    assert.deepEqual(await served('/'), ['a'], 'the backend Lua held is still served');
    assert.deepEqual([...(store.entries?.keys() ?? [])].sort(), ['api', 'api2', 'web']);
    assert.equal(await store.add(api, { whole: true }), 'held', 'Lua holds them already: nothing posted');

    // after the reload: the new configuration has api and api2 only; the push is the delta that removes web
    const before = bodies.length;
    await store.push(() => backendsText(api), api);
    assert.equal(bodies.length, before + 1);
    assert.match(bodies.at(-1) ?? '', /^backends\?from=\S+&id=\S+ \{"set":\[\],"remove":\["web"\]\}$/);
    assert.deepEqual(await served('/'), ['status 503']);
    assert.deepEqual(await served('/api'), ['b']);
  });

  void it('within the bounds the union goes as a delta, whole or not', async () => {
    const store = new LuaStore(client(nginx, bodies), BACKENDS, quietLogger());
    const web = new Map([['web', entry('web', a)]]);
    await store.push(() => backendsText(web), web);
    assert.equal(await store.add(new Map([['api', entry('api', a)]]), { whole: true }), 'added');
    assert.match(bodies.at(-1) ?? '', /^backends\?from=\S+&id=\S+ \{"set":\[\{"name":"api"/);
    assert.deepEqual(await served('/api'), ['a']);
    assert.deepEqual(await served('/'), ['a']);
  });
});
