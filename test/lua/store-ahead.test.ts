// Real nginx + portico.configuration: LuaStore.addWhole (the startup whole's backends pushed ahead of its sync,
// docs/adr/0067) adds to what Lua holds as one whole payload, none removed; the sync's own push after it sends only
// what differs (nothing when the union is its list), and nothing is posted when Lua's payload is unknown or holds all.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { type Backend, type Nginx, endpointsOf, proxiedLocation, startBackend, startNginx, tally } from './harness.js';
import { BACKENDS, LuaStore } from '../../src/apply/lua-store.js';
import { postConfiguration } from '../../src/nginx/endpoint.js';
import { backendsText } from '../../src/render/lua-payload.js';
import { createLogger } from '../../src/log.js';

void describe('backends pushed whole ahead of the sync', () => {
  let nginx: Nginx;
  const pool = new Map<string, Backend>();
  /** Every POST the store made, by path. */
  const posts: string[] = [];
  let store: LuaStore;
  const entry = (name: string, ...ids: string[]): [string, string] => [
    name,
    JSON.stringify({ name, endpoints: endpointsOf(...ids.map((id) => pool.get(id) as Backend)), loadBalance: 'round_robin', hashBy: '', affinity: null }),
  ];
  const held = async (): Promise<string[]> => {
    const res = await nginx.get('/configuration/backends');
    assert.equal(res.status, 200, res.body);
    return (JSON.parse(res.body) as { name: string }[]).map((b) => b.name).sort();
  };

  before(async () => {
    for (const id of ['a', 'b', 'c', 'd']) pool.set(id, await startBackend(id));
    nginx = await startNginx({ locations: proxiedLocation('/', 'web', { hooks: false }) + proxiedLocation('/other', 'other', { hooks: false }) + proxiedLocation('/new', 'new', { hooks: false }) });
    const push = (what: string, body: string) => {
      posts.push(what.replace(/\?.*/, what.includes('from=') ? ' delta' : ' whole'));
      return postConfiguration(nginx.statusPort, nginx.token, what, body);
    };
    store = new LuaStore({ pushRaw: push }, BACKENDS, createLogger('silent'));
  });

  after(async () => {
    await nginx.stop();
    for (const b of pool.values()) await b.close();
  });

  it('adds the new and changed backends as one whole payload, and keeps the ones it does not name', async () => {
    const first = new Map([entry('web', 'a'), entry('other', 'b')]);
    await store.push(() => backendsText(first), first);
    const ahead = new Map([entry('web', 'c'), entry('new', 'd')]);
    await store.addWhole(ahead, backendsText);
    assert.deepEqual(posts, ['backends whole', 'backends whole']);
    assert.deepEqual(await held(), ['new', 'other', 'web']);
    assert.deepEqual([...(await tally(nginx.port, 4, '/'))], [['c', 4]], 'a changed backend answers from its new endpoints');
    assert.deepEqual([...(await tally(nginx.port, 4, '/other'))], [['b', 4]], 'a backend the payload does not name stays');
    assert.deepEqual([...(await tally(nginx.port, 4, '/new'))], [['d', 4]]);
  });

  it('posts nothing when Lua holds every entry already, or when what Lua holds is unknown', async () => {
    await store.addWhole(new Map([entry('web', 'c')]), backendsText);
    assert.equal(posts.length, 2, 'Lua holds them: nothing posted');
    store.forget();
    await store.addWhole(new Map([entry('web', 'a')]), backendsText);
    assert.equal(posts.length, 2, "Lua's payload unknown: nothing posted");
    assert.deepEqual([...(await tally(nginx.port, 4, '/'))], [['c', 4]]);
  });

  it('a push under way when what Lua holds is forgotten (nginx restarted) leaves it unknown', async () => {
    const whole = new Map([entry('web', 'c'), entry('new', 'd'), entry('other', 'b')]);
    const pending = store.push(() => backendsText(whole), whole); // unknown since forget(): whole
    store.forget();
    await pending;
    assert.equal(store.entries, undefined, 'its answer came from the nginx before the restart');
    const again = store.addWhole(new Map([entry('web', 'a')]), backendsText);
    assert.equal(store.entries, undefined);
    await again;
    assert.equal(store.entries, undefined, 'nothing is added to a payload not known');
  });

  it("the sync's push after it sends only the difference: nothing when the union is its list, else a delta", async () => {
    const from = posts.length;
    const whole = new Map([entry('web', 'c'), entry('new', 'd'), entry('other', 'b')]);
    await store.push(() => backendsText(whole), whole); // unknown since forget(): whole
    await store.addWhole(new Map([entry('web', 'a')]), backendsText);
    assert.deepEqual(posts.slice(from), ['backends whole', 'backends whole']);
    const synced = new Map([entry('web', 'a'), entry('new', 'd'), entry('other', 'b')]);
    await store.push(() => backendsText(synced), synced);
    assert.equal(posts.length, from + 2, 'the union is the sync list: nothing posted');
    const fewer = new Map([entry('web', 'a'), entry('new', 'd')]);
    await store.push(() => backendsText(fewer), fewer);
    assert.deepEqual(posts.slice(from + 2), ['backends delta'], 'only the backend the union had too many goes');
    assert.deepEqual(await held(), ['new', 'web']);
    assert.equal((await tally(nginx.port, 2, '/other')).get('status 503'), 2);
  });
});
