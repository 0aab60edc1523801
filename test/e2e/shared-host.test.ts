// Through real nginx, in local mode and against the API server double: namespace a serves shared.test (plain
// HTTP) and secure.test (its own TLS) at /a, older; namespace b adds a newer object on those hosts in each of the five
// ways that used to change a's answers. a's answers (status, backend, what the backend received, headers,
// certificate, redirects) are compared whole with the answers before b existed; b keeps its own paths.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBackend, type Backend } from '../support/backends.js';
import { gateway, httpRoute } from '../support/gateway.js';
import { manifestFolder, type ManifestDir } from '../support/manifests.js';
import { ingress } from '../support/objects.js';
import { until, who, type Running } from '../support/portico.js';
import { NEW, sharedCerts, victimObjects, type SharedCerts } from '../support/shared-host.js';
import { put, startCluster, type Cluster } from '../kube/cluster.js';
import { events } from '../duties/replicas.js';
import { tenantAnswers, type Answers } from '../support/answers.js';
import { startPortico } from '../support/portico.js';

/** a's answers on both hosts. */
const answersOf = (p: Running): Promise<Answers> => tenantAnswers(p, ['shared.test', 'secure.test'], ['/a', '/a/x?q=1', '/a/b/c']);

const A = 'nginx.ingress.kubernetes.io';
const FLAGS = ['--allow-snippet-annotations', '--annotations-risk-level=Critical'];

const own = (name: string, host: string, annotations: Record<string, string> = {}, extra: Record<string, unknown> = {}): unknown => {
  const ing = ingress(name, { namespace: 'b', className: 'portico', created: NEW, host, annotations, paths: [{ path: '/b', type: 'Prefix', service: 'attacker' }] });
  return { ...ing, spec: { ...ing.spec, ...extra } };
};
const bGateway = (name: string, listeners: Parameters<typeof gateway>[1], ns = 'b'): unknown => ({
  ...gateway(name, listeners, { namespace: ns }),
  metadata: { name, namespace: ns, creationTimestamp: NEW },
});
const route = (name: string, parent: { name: string; namespace?: string }, rules: unknown[]): unknown => ({
  ...httpRoute(name, { parentRefs: [parent], hostnames: ['shared.test'], rules }, 'b'),
  metadata: { name, namespace: 'b', creationTimestamp: NEW },
});
const toAttacker = [{ name: 'attacker', port: 80 }];

/** The route's parents carry PartiallyInvalid True naming the refused match. */
function partiallyInvalid(cluster: Cluster, name: string): boolean {
  const r = cluster.api.get('HTTPRoute', 'b', name) as { status?: { parents?: { conditions?: { type: string; status: string; message: string }[] }[] } } | undefined;
  return (r?.status?.parents ?? []).some((p) => (p.conditions ?? []).some((c) => c.type === 'PartiallyInvalid' && c.status === 'True' && /spec\.rules\[0\]\.matches\[\d\]/.test(c.message)));
}

/** One way b used to change a's answers: b's objects, the Warning that names the refusal, and what b's own path answers. */
interface Attack {
  readonly name: string;
  readonly objects: unknown[];
  readonly warning: RegExp;
  readonly own?: readonly [string, string, string];
}

function attacks(): Attack[] {
  return [
    {
      name: '1. server-snippet rewrite',
      objects: [own('snip', 'shared.test', { [`${A}/server-snippet`]: 'rewrite ^(.*)$ /b$1 last;' })],
      warning: /server-snippet reaches every path of shared\.test/,
      own: ['shared.test', '/b', 'attacker'],
    },
    {
      name: '1. server-snippet return 418',
      objects: [own('snip', 'secure.test', { [`${A}/server-snippet`]: 'return 418;' })],
      warning: /server-snippet reaches every path of secure\.test/,
      own: ['secure.test', '/b', '308'],
    },
    {
      name: "2. HTTPRoute regex /.* on b's own Gateway",
      objects: [
        bGateway('gw', [{ name: 'http', hostname: 'shared.test' }]),
        route('re', { name: 'gw' }, [{ matches: [{ path: { type: 'RegularExpression', value: '/.*' } }], backendRefs: toAttacker }]),
      ],
      warning: /the match RegularExpression \/\.\* would take requests for shared\.test\/a/,
      own: ['shared.test', '/elsewhere', 'attacker'],
    },
    {
      name: '2. HTTPRoute /a/.* and PathPrefix /a + method on a shared Gateway',
      objects: [
        bGateway('shared', [{ name: 'http', from: 'All' }], 'infra'),
        route('cond', { name: 'shared', namespace: 'infra' }, [
          { matches: [{ path: { type: 'RegularExpression', value: '/a/.*' } }, { path: { type: 'PathPrefix', value: '/a' }, method: 'GET' }], backendRefs: toAttacker },
          { matches: [{ path: { type: 'PathPrefix', value: '/b' } }], backendRefs: toAttacker },
        ]),
      ],
      warning: /the match PathPrefix \/a with method GET would take requests for shared\.test\/a/,
      own: ['shared.test', '/b', 'attacker'],
    },
    {
      name: "3. canary weight 100 on a's path",
      objects: [
        own('b-own', 'shared.test'),
        {
          ...ingress('canary', {
            namespace: 'b',
            className: 'portico',
            created: NEW,
            host: 'shared.test',
            annotations: { [`${A}/canary`]: 'true', [`${A}/canary-weight`]: '100' },
            paths: [{ path: '/a', type: 'Prefix', service: 'attacker' }],
          }),
        },
      ],
      warning: /a canary attaches only to a main path of its own namespace/,
      own: ['shared.test', '/b', 'attacker'],
    },
    {
      name: '4. auth-tls verify on',
      objects: [own('mtls', 'secure.test', { [`${A}/auth-tls-secret`]: 'b/ca', [`${A}/auth-tls-verify-client`]: 'on' })],
      warning: /client-certificate auth \(auth-tls-\*\) reaches every path of secure\.test/,
    },
    {
      name: '4. auth-tls-match-cn',
      objects: [own('mtls', 'shared.test', { [`${A}/auth-tls-secret`]: 'b/ca', [`${A}/auth-tls-verify-client`]: 'on', [`${A}/auth-tls-match-cn`]: 'CN=client' })],
      warning: /client-certificate auth \(auth-tls-\*\) reaches every path of shared\.test/,
      own: ['shared.test', '/b', '503'],
    },
    {
      name: '5. spec.tls for shared.test',
      objects: [own('tls', 'shared.test', {}, { tls: [{ hosts: ['shared.test'], secretName: 'cert' }] })],
      warning: /TLS \(with its ssl-redirect and HSTS\) reaches every path of shared\.test/,
    },
    {
      name: '5. spec.tls without hosts',
      objects: [own('tls', 'shared.test', {}, { tls: [{ secretName: 'cert' }] })],
      warning: /TLS \(with its ssl-redirect and HSTS\) reaches every path of shared\.test/,
    },
    {
      name: "5. an HTTPS listener of b's Gateway",
      objects: [
        bGateway('gw', [{ name: 'https', protocol: 'HTTPS', hostname: 'shared.test', certificateRefs: [{ name: 'cert' }] }]),
        route('tls', { name: 'gw' }, [{ matches: [{ path: { type: 'PathPrefix', value: '/b' } }], backendRefs: toAttacker }]),
      ],
      warning: /TLS \(with its ssl-redirect and HSTS\) of this listener reaches every path of shared\.test/,
    },
  ];
}

let round = 0;

/**
 * One attack through `apply` (b's objects replace the last attack's, with a marker Ingress on a host of b's own):
 * once the marker is served, a's answers are compared whole, then b's own path and the Warning are checked.
 */
async function runAttack(p: Running, before: Answers, a: Attack, apply: (objects: unknown[]) => Promise<void>): Promise<void> {
  round += 1;
  const marker = ingress(`marker-${round}`, { namespace: 'b', className: 'portico', created: NEW, host: `m${round}.test`, paths: [{ path: '/', type: 'Prefix', service: 'attacker' }] });
  await apply([...a.objects, marker]);
  await until(`${a.name}: applied (its marker served)`, async () => (await who(p.http, `m${round}.test`, '/')) === 'attacker', 15_000);
  // The API double's watches are per kind: let b's other kinds reach the same sync before comparing.
  await until(`${a.name}: its Warning`, () => p.output.some((l) => a.warning.test(l)), 15_000).catch(() => undefined);
  assert.deepEqual(await answersOf(p), before, `${a.name}: a's answers are unchanged`);
  if (a.own) {
    const [host, path, want] = a.own;
    await until(`${a.name}: b's own ${host}${path} answers ${want}`, async () => (await who(p.http, host, path)) === want, 15_000);
  }
  assert.ok(
    p.output.some((l) => a.warning.test(l)),
    `${a.name}: a Warning names the refusal and the owner`,
  );
}

describe("a newer namespace on a shared host never changes the older namespace's answers (real nginx)", () => {
  let victim: Backend;
  let attacker: Backend;
  let certDir: string;
  let certs: SharedCerts;

  before(async () => {
    victim = await startBackend('victim');
    attacker = await startBackend('attacker');
    certDir = await mkdtemp(join(tmpdir(), 'portico-shared-'));
    certs = sharedCerts(certDir);
  });
  after(async () => {
    await victim.close();
    await attacker.close();
    await rm(certDir, { recursive: true, force: true });
  });

  void describe('local mode', () => {
    let dir: ManifestDir;
    let p: Running;
    let baseline: Answers;
    before(async () => {
      dir = await manifestFolder();
      await dir.write('a.json', victimObjects(victim, attacker, certs));
      p = await startPortico(['--manifests', dir.dir, ...FLAGS]);
      await until('a served', async () => (await who(p.http, 'shared.test', '/a')) === 'victim');
      baseline = await answersOf(p);
    });
    after(async () => {
      await p.stop();
      await dir.remove();
    });

    test("a's answers before b: served by a's backend with a's cookie", () => {
      assert.deepEqual(baseline['http://shared.test/a/x?q=1'], {
        status: 200,
        backend: 'victim',
        headers: { 'content-type': 'application/json', 'x-backend': 'victim' },
        received: { method: 'GET', url: '/a/x?q=1', cookie: 'session=a-secret' },
      });
    });
    for (const a of attacks()) {
      test(a.name, () => runAttack(p, baseline, a, (objects) => dir.write('b.json', objects)));
    }
  });

  void describe('against the API server double', () => {
    let cluster: Cluster;
    let p: Running;
    let last: unknown[] = [];
    let baseline: Answers;
    before(async () => {
      cluster = await startCluster([], ['default', 'a', 'b', 'infra']);
      for (const o of victimObjects(victim, attacker, certs)) put(cluster.api, o);
      p = await cluster.portico(FLAGS);
      await until('a served', async () => (await who(p.http, 'shared.test', '/a')) === 'victim');
      baseline = await answersOf(p);
    });
    after(async () => {
      await cluster.stop();
    });

    const apply = async (objects: unknown[]): Promise<void> => {
      for (const o of last) {
        const m = o as { kind: string; metadata: { namespace: string; name: string } };
        cluster.api.remove(m.kind, m.metadata.namespace, m.metadata.name);
      }
      for (const o of objects) put(cluster.api, o);
      last = objects;
    };
    for (const a of attacks()) {
      test(a.name, async () => {
        await runAttack(p, baseline, a, apply);
        const route = a.objects.find((o): o is { kind: string; metadata: { name: string } } => (o as { kind?: string }).kind === 'HTTPRoute');
        if (route === undefined || !/match/.test(a.warning.source)) return;
        // The route's status says which part was refused: PartiallyInvalid on its parent, with the match and the reason.
        await until(`${a.name}: the HTTPRoute's status has PartiallyInvalid`, () => partiallyInvalid(cluster, route.metadata.name), 15_000);
      });
    }
    test('each refusal is an Event naming the owner', async () => {
      await until('HostConflict Events in namespace b', () => events(cluster.api, 'b').some((e) => e.reason === 'HostConflict' && /namespace a/.test(e.note ?? '')), 10_000);
    });
  });
});
