// A tenant tries to reach Portico's own configuration endpoint (or the metadata service) through
// mirror-target or an EndpointSlice, or a client POSTs to it directly. In local mode and against the API server
// double: each attack fails, the attacker gets a Warning, and another tenant keeps being served by its backend.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startBackend, type Backend } from '../support/backends.js';
import { ingress, service, slice } from '../support/objects.js';
import { manifestFolder, type ManifestDir } from '../support/manifests.js';
import { configToken, get, startPortico, TOKEN_NGINX, until, who, type Running } from '../support/portico.js';
import { put, startCluster, type Cluster } from '../kube/cluster.js';
import { events } from '../duties/replicas.js';

const A = 'nginx.ingress.kubernetes.io';

/** What a scenario needs from its world: put objects, and whether Portico warned about an object. */
interface World {
  readonly portico: Running;
  apply(file: string, objects: readonly unknown[]): Promise<void>;
  warned(kind: string, name: string, pattern: RegExp): boolean;
}

/** An Ingress of class portico on `host` → Service `svc`, with annotations. */
const route = (name: string, host: string, svc: string, annotations?: Record<string, string>): unknown =>
  ingress(name, { className: 'portico', host, paths: [{ path: '/', type: 'Prefix', service: svc }], ...(annotations ? { annotations } : {}) });

interface BackendJson {
  name: string;
  endpoints: { address: string; port: number }[];
}

/**
 * The other tenant's view, and its backend as nginx (GET with the token) and Portico (/debug/backends) hold it, to
 * compare before and after an attack; also asserts that no backend anywhere points at Portico's own ports or 169.254/16.
 */
async function state(w: World, victimHost: string): Promise<{ served: string; lua: BackendJson | undefined; debug: BackendJson | undefined }> {
  const token = await configToken(w.portico);
  const lua = await get(w.portico.status, 'localhost', '/configuration/backends', { headers: { 'x-portico-token': token } });
  assert.equal(lua.status, 200);
  const debug = await get(w.portico.healthz, 'localhost', '/debug/backends');
  const [inLua, inDebug] = [lua.body, debug.body].map((b) => JSON.parse(b) as BackendJson[]);
  const own = [w.portico.http, w.portico.https, w.portico.healthz, w.portico.status];
  for (const b of [...(inLua ?? []), ...(inDebug ?? [])]) {
    for (const e of b.endpoints) assert.ok(!own.includes(e.port) && !e.address.startsWith('169.254.'), `${b.name} points at ${e.address}:${e.port}`);
  }
  const victim = (list: BackendJson[] | undefined): BackendJson | undefined => list?.find((b) => b.name === 'default_victim_80');
  return { served: await who(w.portico.http, victimHost, '/'), lua: victim(inLua), debug: victim(inDebug) };
}

/** The other tenant's state stays `before` for half a second (a mirror subrequest may land after its main request). */
async function unchanged(w: World, victimHost: string, before: Awaited<ReturnType<typeof state>>): Promise<void> {
  for (let i = 0; i < 10; i++) {
    assert.deepEqual(await state(w, victimHost), before, 'the other tenant, its backend in Lua and in /debug are unchanged');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The POST that would replace every tenant's backends: all traffic to the attacker's backend. */
const hostile = (evil: Backend): string => JSON.stringify([{ name: 'default_victim_80', endpoints: [{ address: '127.0.0.1', port: evil.port }] }]);

function scenarios(name: string, world: () => World, backends: () => { victim: Backend; evil: Backend }): void {
  const victimHost = 'victim.example';
  const servedBefore = async (): ReturnType<typeof state> => {
    const s = await state(world(), victimHost);
    assert.equal(s.served, 'victim');
    return s;
  };

  void it(`${name}: (a) mirror-target to the status port is refused; a POST through it changes nothing`, async () => {
    const w = world();
    const before = await servedBefore();
    await w.apply('mirror.json', [route('evil', 'evil.example', 'evil', { [`${A}/mirror-target`]: `http://127.0.0.1:${w.portico.status}$request_uri` })]);
    try {
      // mirror-target fails open (docs/adr/0016; the Ingress used to be left unserved): served without the mirror.
      await until('the evil Ingress synced', async () => w.warned('Ingress', 'evil', /mirror-target/) && (await who(w.portico.http, 'evil.example', '/')) === 'evil', 10_000);
      const r = await get(w.portico.http, 'evil.example', '/configuration/backends', { method: 'POST', body: hostile(backends().evil), headers: { 'content-type': 'application/json' } });
      await unchanged(w, victimHost, before);
      assert.equal((JSON.parse(r.body) as { id: string }).id, 'evil', "the attacker's own backend answers; nothing is mirrored to the status port");
      assert.ok(w.warned('Ingress', 'evil', /mirror-target.*own ports/), 'a Warning names the annotation and why');
    } finally {
      await w.apply('mirror.json', []);
    }
  });

  void it(`${name}: (b) an EndpointSlice on 127.0.0.1 and the status port gets no traffic (503); others are served`, async () => {
    const w = world();
    const before = await servedBefore();
    await w.apply('sneaky.json', [service('sneaky'), slice('sneaky', w.portico.status, ['127.0.0.1', '::ffff:127.0.0.1']), route('sneaky', 'sneaky.example', 'sneaky')]);
    try {
      await until('sneaky.example synced', async () => (await who(w.portico.http, 'sneaky.example', '/')) !== '404', 10_000);
      const r = await get(w.portico.http, 'sneaky.example', '/configuration/backends', { method: 'POST', body: hostile(backends().evil) });
      await unchanged(w, victimHost, before);
      assert.equal(r.status, 503, 'no endpoint left: 503');
      assert.equal(await who(w.portico.http, 'sneaky.example', '/'), '503');
      await until('a Warning on the EndpointSlice', () => w.warned('EndpointSlice', 'sneaky-abc', /127\.0\.0\.1 port \d+ is loopback on one of Portico's own ports/), 10_000);
    } finally {
      await w.apply('sneaky.json', []);
    }
  });

  void it(`${name}: (c) the metadata address 169.254.169.254 as mirror-target or endpoint is refused`, async () => {
    const w = world();
    const before = await servedBefore();
    await w.apply('meta.json', [
      route('meta-mirror', 'meta-mirror.example', 'evil', { [`${A}/mirror-target`]: 'http://169.254.169.254/latest/meta-data$request_uri' }),
      service('meta'),
      slice('meta', 80, ['169.254.169.254']),
      route('meta-ep', 'meta-ep.example', 'meta'),
    ]);
    try {
      await until('meta-ep.example synced', async () => (await who(w.portico.http, 'meta-ep.example', '/')) !== '404', 10_000);
      assert.equal(await who(w.portico.http, 'meta-ep.example', '/'), '503', 'no endpoint left: 503');
      // mirror-target fails open (docs/adr/0016): the Ingress is served by its own backend, with no mirror.
      await until('meta-mirror.example served without its mirror', async () => (await who(w.portico.http, 'meta-mirror.example', '/')) === 'evil', 10_000);
      await until(
        'warnings for both',
        () => w.warned('Ingress', 'meta-mirror', /mirror-target.*link-local/) && w.warned('EndpointSlice', 'meta-abc', /169\.254\.169\.254 is a link-local address/),
        10_000,
      );
      await unchanged(w, victimHost, before);
    } finally {
      await w.apply('meta.json', []);
    }
  });

  void it(`${name}: (d) a direct POST to the status port without the token, or with a wrong one, answers 403 and changes nothing`, async () => {
    const w = world();
    const before = await servedBefore();
    const token = await configToken(w.portico);
    const wrong: Record<string, string>[] = [{}, { 'x-portico-token': '' }, { 'x-portico-token': 'f'.repeat(token.length) }, { 'x-portico-token': token.slice(1) }];
    for (const headers of wrong) {
      for (const path of ['/configuration/backends', '/configuration/certificates']) {
        const post = await get(w.portico.status, 'localhost', path, { method: 'POST', body: hostile(backends().evil), headers: { 'content-type': 'application/json', ...headers } });
        assert.equal(post.status, 403, `${path} ${JSON.stringify(headers)}`);
        assert.equal((await get(w.portico.status, 'localhost', path, { headers })).status, 403);
      }
    }
    assert.deepEqual(await state(w, victimHost), before);
    const all = [...w.portico.output, (await get(w.portico.healthz, 'localhost', '/debug/config')).body, (await get(w.portico.healthz, 'localhost', '/debug/backends')).body];
    assert.ok(!all.some((t) => t.includes(token)), 'the token is in no log line and no /debug page');
    assert.match(all[all.length - 2] ?? '', /^env PORTICO_CONFIG_TOKEN;$/m);
  });
}

void describe('isolation of targets, local mode', () => {
  let folder: ManifestDir;
  let portico: Running;
  let victim: Backend;
  let evil: Backend;

  before(async () => {
    victim = await startBackend('victim');
    evil = await startBackend('evil');
    folder = await manifestFolder();
    await folder.write('tenants.json', [
      service('victim'),
      slice('victim', victim.port, ['127.0.0.1']),
      route('victim', 'victim.example', 'victim'),
      service('evil'),
      slice('evil', evil.port, ['127.0.0.1']),
    ]);
    portico = await startPortico(['--manifests', folder.dir, '--nginx-binary', TOKEN_NGINX]);
    await until('victim served', async () => (await who(portico.http, 'victim.example', '/')) === 'victim');
  });

  after(async () => {
    await portico.stop();
    await folder.remove();
    await victim.close();
    await evil.close();
  });

  const world = (): World => ({
    portico,
    apply: (file, objects) => folder.write(file, objects),
    warned: (kind, name, pattern) => portico.output.some((l) => l.includes('"level":40') && l.includes(`"object":"${kind} default/${name}"`) && pattern.test(l)),
  });
  scenarios('local mode', world, () => ({ victim, evil }));
});

void describe('isolation of targets, API server double', () => {
  let c: Cluster;
  let portico: Running;

  before(async () => {
    c = await startCluster(['victim', 'evil']);
    put(c.api, route('victim', 'victim.example', 'victim'));
    portico = await c.portico(['--nginx-binary', TOKEN_NGINX]);
    await until('victim served', async () => (await who(portico.http, 'victim.example', '/')) === 'victim');
  });

  after(async () => {
    await c.stop();
  });

  const placed = new Map<string, unknown[]>();
  const world = (): World => ({
    portico,
    apply: async (file, objects) => {
      for (const o of placed.get(file) ?? []) {
        const { kind, metadata } = o as { kind: string; metadata: { namespace: string; name: string } };
        c.api.remove(kind, metadata.namespace, metadata.name);
      }
      for (const o of objects) put(c.api, o);
      placed.set(file, [...objects]);
    },
    warned: (kind, name, pattern) => events(c.api, 'default').some((e) => e.type === 'Warning' && e.regarding.kind === kind && e.regarding.name === name && pattern.test(e.note)),
  });
  scenarios('API double', world, () => ({ victim: c.backends.get('victim')!, evil: c.backends.get('evil')! }));

  void it('API double: (e) --allow-loopback-upstreams=false refuses a loopback endpoint with a Problem; an allowed tenant is served', async () => {
    // The operator refuses loopback but allows the victim's own address: another loopback address is the attack.
    const strict = await c.portico(['--nginx-binary', TOKEN_NGINX, '--allow-loopback-upstreams=false', '--allow-upstream-cidrs=127.0.0.1/32']);
    await until('victim served by the strict Portico', async () => (await who(strict.http, 'victim.example', '/')) === 'victim');
    put(c.api, service('node-local'));
    put(c.api, slice('node-local', c.backends.get('evil')!.port, ['127.0.0.2']));
    put(c.api, route('node-local', 'node-local.example', 'node-local'));
    await until(
      'a Problem for 127.0.0.2',
      () => events(c.api, 'default').some((e) => e.regarding.name === 'node-local-abc' && /127\.0\.0\.2 is a loopback address.*--allow-loopback-upstreams/.test(e.note)),
      10_000,
    );
    // Refused: no endpoint, so 503; accepted, nginx would have tried 127.0.0.2 (nothing listens there) and answered 502.
    await until('node-local.example answers 503', async () => (await who(strict.http, 'node-local.example', '/')) === '503', 10_000);
    const debug = (await get(strict.healthz, 'localhost', '/debug/backends')).body;
    assert.ok(!debug.includes('127.0.0.2'), debug);
    await until('the default Portico (outside a pod) allows loopback on other ports: 502', async () => (await who(portico.http, 'node-local.example', '/')) === '502', 10_000);
    assert.equal(await who(strict.http, 'victim.example', '/'), 'victim');
    assert.ok(
      strict.output.some((l) => l.includes('"object":"EndpointSlice default/node-local-abc"')),
      'the Problem is logged too',
    );
  });
});
