// Real nginx: consistent hashing on hashBy, and EWMA preferring the faster endpoint.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { type Nginx, backendPool, endpointsOf, proxiedLocation, request, startBackend, startNginx, tally } from './harness.js';

void describe('lua balancer algorithms', () => {
  let nginx: Nginx;
  const { pool, byId, post } = backendPool(() => nginx);
  /** Which backend answers each URI (every URI asked `times` times; all answers must agree). */
  const owners = async (uris: string[], times: number): Promise<Map<string, string>> => {
    const owner = new Map<string, string>();
    for (const uri of uris) {
      const seen = await tally(nginx.port, times, uri);
      assert.equal(seen.size, 1, `${uri} went to ${JSON.stringify([...seen])}`);
      owner.set(uri, [...seen.keys()][0] ?? '');
    }
    return owner;
  };

  before(async () => {
    pool.push(await startBackend('a'), await startBackend('b'), await startBackend('c'));
    pool.push(await startBackend('fast'), await startBackend('slow', 60));
    nginx = await startNginx();
  });

  after(async () => {
    await nginx.stop();
    for (const b of pool) await b.close();
  });

  void it('chash on $request_uri always sends one URI to the same backend, and moves only the removed ones', async () => {
    await post([{ name: 'web', endpoints: endpointsOf(byId('a'), byId('b'), byId('c')), hashBy: '$request_uri' }]);
    const uris = Array.from({ length: 30 }, (_, i) => `/item/${i}?q=${i * 7}`);
    const first = await owners(uris, 4);
    assert.deepEqual(new Set(first.values()), new Set(['a', 'b', 'c']), 'keys spread over all endpoints');

    // the same endpoint set posted again (new version, other order): nothing moves
    await post([{ name: 'web', endpoints: endpointsOf(byId('c'), byId('a'), byId('b')), hashBy: '$request_uri' }]);
    assert.deepEqual(await owners(uris, 2), first);

    // without c: c's URIs move, every other URI stays where it was
    await post([{ name: 'web', endpoints: endpointsOf(byId('a'), byId('b')), hashBy: '$request_uri' }]);
    const second = await owners(uris, 2);
    for (const uri of uris) {
      const was = first.get(uri);
      if (was === 'c') assert.notEqual(second.get(uri), 'c');
      else assert.equal(second.get(uri), was, uri);
    }
  });

  void it('chash on a compound expression uses every part of it', async () => {
    await post([{ name: 'web', endpoints: endpointsOf(byId('a'), byId('b'), byId('c')), hashBy: '${arg_user}-$request_method' }]);
    const users = Array.from({ length: 20 }, (_, i) => `u${i}`);
    const targets = new Set<string>();
    for (const user of users) {
      // the path is not part of the key: one user lands on one backend whatever the path
      const seen = new Set<string>();
      for (let i = 0; i < 4; i++) seen.add((await request(nginx.port, `/p${i}?user=${user}`)).body);
      assert.equal(seen.size, 1, `${user}: ${[...seen].join(',')}`);
      targets.add([...seen][0] ?? '');
    }
    assert.ok(targets.size >= 2, 'users spread');
  });

  void it('chash with hashSubset sends one URI to the endpoints of one subset, the last subset filled up from the start', async () => {
    await post([{ name: 'web', endpoints: endpointsOf(byId('a'), byId('b'), byId('c')), hashBy: '$request_uri', hashSubset: 2 }]);
    const subsets = new Set<string>();
    for (let i = 0; i < 12; i++) {
      // 40 requests: a subset of two misses one of its endpoints with probability 2^-39
      const seen = await tally(nginx.port, 40, `/item/${i}`);
      assert.equal(seen.size, 2, `/item/${i} went to ${JSON.stringify([...seen])}`);
      subsets.add([...seen.keys()].sort().join(','));
    }
    // three endpoints in subsets of two: the first two, and the third with the first again
    assert.equal(subsets.size, 2, JSON.stringify([...subsets]));
    assert.deepEqual(new Set([...subsets].flatMap((s) => s.split(','))), new Set(['a', 'b', 'c']));
  });

  void it('ewma prefers a fast backend over a slow one', async () => {
    await post([{ name: 'web', endpoints: endpointsOf(byId('fast'), byId('slow')), loadBalance: 'ewma' }]);
    const seen = await tally(nginx.port, 60);
    const fast = seen.get('fast') ?? 0;
    assert.ok(fast >= 50, `fast answered ${fast} of 60 (${JSON.stringify([...seen])})`);
  });

  void it('precedence: hashBy wins over loadBalance', async () => {
    await post([{ name: 'web', endpoints: endpointsOf(byId('a'), byId('b'), byId('c')), loadBalance: 'ewma', hashBy: '$request_uri' }]);
    await owners(['/x', '/y', '/z'], 6);
  });

  void it('logs no Lua errors', () => {
    assert.doesNotMatch(nginx.errorLog(), /\[(error|crit|alert|emerg)\][^\n]*(runtime error|lua entry thread|portico: )/);
  });
});

// A whole list waits in each worker as posted until a request needs its backend (docs/adr/0048); what the algorithm
// learnt (here round robin's cursor) must pass from the entry installed before to the one installed after, even over
// lists that were never installed in between. One worker, so the cursor is the only one.
void describe('lua balancer state across whole lists', () => {
  let nginx: Nginx;
  const { pool, byId, post } = backendPool(() => nginx);
  const list = (): Parameters<typeof post>[0] => [
    { name: 'web', endpoints: endpointsOf(byId('a'), byId('b'), byId('c')), loadBalance: 'round_robin' },
    { name: 'other', endpoints: endpointsOf(byId('a')), loadBalance: 'round_robin' },
  ];

  before(async () => {
    pool.push(await startBackend('a'), await startBackend('b'), await startBackend('c'));
    nginx = await startNginx({ workers: 1, locations: proxiedLocation('/', 'web') + proxiedLocation('/other', 'other') });
  });

  after(async () => {
    await nginx.stop();
    for (const b of pool) await b.close();
  });

  void it('round robin goes on where it was after lists its backend had no request in', async () => {
    await post(list());
    const seq: string[] = [];
    for (let i = 0; i < 3; i++) seq.push((await request(nginx.port, '/')).body);
    assert.deepEqual([...seq].sort(), ['a', 'b', 'c']);
    // a cursor started afresh lands on the right endpoint 1 time in 3: five rounds tell it apart
    for (let round = 0; round < 5; round++) {
      await post(list());
      // this worker takes the list in with a request to another backend: `web` waits in it as posted
      assert.equal((await request(nginx.port, '/other')).body, 'a');
      await post(list());
      const next = (await request(nginx.port, '/')).body;
      assert.equal(next, seq[seq.length % 3], `round ${round}: ${seq.join(',')} then ${next}`);
      seq.push(next);
    }
    assert.doesNotMatch(nginx.errorLog(), /\[error\]/);
  });
});
