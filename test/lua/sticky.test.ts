// Real nginx: cookie affinity (persistent and balanced), set in the rewrite phase beside the backend's cookies.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { type BackendJson, type Nginx, backendPool, endpointsOf, request, startBackend, startNginx } from './harness.js';

const COOKIE = 'INGRESSCOOKIE';

interface Visit {
  backend: string;
  setCookie: string | undefined;
  cookies: string[];
}

void describe('lua cookie affinity', () => {
  let nginx: Nginx;
  const { pool, byId, post } = backendPool(() => nginx);
  const affinity = (mode: string, ...ids: string[]): BackendJson[] => [
    { name: 'web', endpoints: endpointsOf(...ids.map(byId)), affinity: { mode, name: COOKIE, path: '/', maxAge: 3600, expires: 7200, sameSite: 'Lax', secure: true } },
  ];
  /** One request as a client holding `value` (or no cookie). */
  const visit = async (value?: string): Promise<Visit> => {
    const headers: Record<string, string> = value === undefined ? {} : { cookie: `other=1; ${COOKIE}=${value}` };
    const res = await request(nginx.port, '/', { headers });
    assert.equal(res.status, 200, res.body);
    const cookies = res.headers['set-cookie'] ?? [];
    return { backend: res.body, setCookie: cookies.find((c) => c.startsWith(`${COOKIE}=`)), cookies };
  };
  const valueOf = (setCookie: string | undefined): string => {
    const m = /^INGRESSCOOKIE=([^;]+);/.exec(setCookie ?? '');
    assert.ok(m?.[1], `no ${COOKIE} in ${String(setCookie)}`);
    return m[1];
  };
  /** New clients: their cookie values and where they landed. */
  const newClients = async (count: number): Promise<{ value: string; backend: string }[]> => {
    const out = [];
    for (let i = 0; i < count; i++) {
      const v = await visit();
      out.push({ value: valueOf(v.setCookie), backend: v.backend });
    }
    return out;
  };

  before(async () => {
    for (const id of ['a', 'b', 'c', 'd']) pool.push(await startBackend(id));
    nginx = await startNginx();
  });

  after(async () => {
    await nginx.stop();
    for (const b of pool) await b.close();
  });

  void it('persistent: pins a client, spreads new ones, moves a client only when its endpoint goes', async () => {
    await post(affinity('persistent', 'a', 'b', 'c'));
    const first = await visit();
    assert.match(first.setCookie ?? '', /^INGRESSCOOKIE=[0-9a-f]{32}; Path=\/; Max-Age=3600; SameSite=Lax; Secure; HttpOnly; Expires=\w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d GMT$/);
    assert.ok(first.cookies.includes(`backend=${first.backend}; Path=/`), 'the backend keeps its own cookie');
    const value = valueOf(first.setCookie);
    for (let i = 0; i < 10; i++) {
      const v = await visit(value);
      assert.equal(v.backend, first.backend);
      assert.equal(v.setCookie, undefined, 'a valid cookie is not set again');
    }
    const clients = await newClients(9);
    assert.deepEqual(new Set(clients.map((c) => c.backend)), new Set(['a', 'b', 'c']));

    // a new endpoint: nobody whose endpoint still exists moves
    await post(affinity('persistent', 'a', 'b', 'c', 'd'));
    for (const c of clients) assert.equal((await visit(c.value)).backend, c.backend);

    // the first client's endpoint goes: it moves, gets a new cookie, and stays on the new endpoint
    const rest = ['a', 'b', 'c', 'd'].filter((id) => id !== first.backend);
    await post(affinity('persistent', ...rest));
    const moved = await visit(value);
    assert.notEqual(moved.backend, first.backend);
    const newValue = valueOf(moved.setCookie);
    for (let i = 0; i < 5; i++) assert.equal((await visit(newValue)).backend, moved.backend);
    // a made-up cookie counts as no cookie
    assert.ok((await visit('0123456789abcdef0123456789abcdef')).setCookie);
  });

  void it('balanced: pins clients, spreads new ones, and a removed endpoint moves only its own clients', async () => {
    await post(affinity('balanced', 'a', 'b', 'c'));
    const clients = await newClients(30);
    assert.deepEqual(new Set(clients.map((c) => c.backend)), new Set(['a', 'b', 'c']));
    for (const c of clients.slice(0, 5)) {
      for (let i = 0; i < 4; i++) {
        const v = await visit(c.value);
        assert.equal(v.backend, c.backend);
        assert.equal(v.setCookie, undefined);
      }
    }
    await post(affinity('balanced', 'a', 'c'));
    for (const c of clients) {
      const v = await visit(c.value);
      if (c.backend === 'b') assert.notEqual(v.backend, 'b');
      else assert.equal(v.backend, c.backend, 'clients of the remaining endpoints stay');
      assert.equal((await visit(c.value)).backend, v.backend, 'and the moved ones stay where they moved');
    }
  });

  void it('precedence: affinity wins over hashBy', async () => {
    const list = affinity('persistent', 'a', 'b', 'c');
    const [first] = list;
    if (first) first.hashBy = '$request_uri';
    await post(list);
    assert.ok((await visit()).setCookie);
  });

  void it('logs no Lua errors', () => {
    assert.doesNotMatch(nginx.errorLog(), /\[(error|crit|alert|emerg)\][^\n]*(runtime error|lua entry thread|portico: )/);
  });
});
