// End to end, local mode, real nginx: allowedRoutes Selector over the Namespaces of the manifests folder (served by
// labels, relabelled while running), kinds and other ports reported; /debug/gateway and `portico gateway` show the
// status a leader would write (local mode writes none).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startBackend, type Backend } from '../support/backends.js';
import { manifestDir, serviceFor, writeManifests } from '../support/manifests.js';
import { REPO, freePort, get, startPortico, until, who, type Running } from '../support/portico.js';
import { gateway, gatewayClass, httpRoute } from '../support/gateway.js';
import type { GatewayDoc } from '../../src/inspect/gateway.js';

const run = promisify(execFile);
const namespace = (name: string, labels: Record<string, string>): unknown => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } });
const route = (name: string, ns: string, path: string, sectionName: string): unknown =>
  httpRoute(
    name,
    { parentRefs: [{ name: 'web', namespace: 'default', sectionName }], rules: [{ matches: [{ path: { type: 'PathPrefix', value: path } }], backendRefs: [{ name: 'app', port: 80 }] }] },
    ns,
  );

describe('Gateway status in local mode', () => {
  let backends: Backend[] = [];
  let dir = '';
  let p: Running;
  const objects = (teamBLabels: Record<string, string>): unknown[] => {
    const [a, b] = backends as [Backend, Backend];
    const web = gateway('web', [
      { name: 'sel', hostname: 'sel.test' },
      { name: 'grpc', hostname: 'grpc.test' },
      { name: 'alt', port: 8080, from: 'All' },
    ]) as { spec: { listeners: Record<string, unknown>[] } };
    web.spec.listeners[0] = { ...web.spec.listeners[0], allowedRoutes: { namespaces: { from: 'Selector', selector: { matchLabels: { 'gateway-access': 'yes' } } } } };
    web.spec.listeners[1] = { ...web.spec.listeners[1], allowedRoutes: { namespaces: { from: 'All' }, kinds: [{ kind: 'GRPCRoute' }] } };
    return [
      gatewayClass('portico'),
      web,
      namespace('team-a', { 'gateway-access': 'yes' }),
      namespace('team-b', teamBLabels),
      ...serviceFor('app', [a], { namespace: 'team-a' }),
      ...serviceFor('app', [b], { namespace: 'team-b' }),
      route('a', 'team-a', '/a', 'sel'),
      route('b', 'team-b', '/b', 'sel'),
      route('g', 'team-a', '/', 'grpc'),
      route('alt', 'team-a', '/', 'alt'),
    ];
  };
  const debugGateway = async (): Promise<GatewayDoc> => JSON.parse((await get(p.healthz, 'localhost', '/debug/gateway')).body) as GatewayDoc;
  const cli = async (...args: string[]): Promise<string> =>
    (await run(process.execPath, [join(REPO, 'bin/portico.js'), 'gateway', ...args, '--url', `http://127.0.0.1:${p.healthz}`], { timeout: 20_000 })).stdout;
  const accepted = (doc: GatewayDoc, name: string): string =>
    doc.httpRoutes
      .find((r) => r.name === name)
      ?.parents.map((x) => x.conditions.find((c) => c.type === 'Accepted')?.reason)
      .join(',') ?? 'none';

  before(async () => {
    backends = await Promise.all(['a', 'b'].map((id) => startBackend(id)));
    dir = await manifestDir();
    await writeManifests(dir, 'all.yaml', objects({ 'gateway-access': 'no' }));
    // the alt listener's port maps onto the default server's: PortUnavailable, naming the flag
    const own = await freePort();
    p = await startPortico(['--manifests', dir, '--publish-status-address', '192.0.2.10,lb.example.test', '--default-server-port', String(own), '--gateway-port-map', `8080=${own}`]);
  });
  after(async () => {
    assert.equal(await p?.stop(), 0);
    await Promise.all(backends.map((b) => b.close()));
    await rm(dir, { recursive: true, force: true });
  });

  test('Selector: only routes of namespaces whose labels match are served; a relabelled Namespace is applied while running', async () => {
    assert.deepEqual([await who(p.http, 'sel.test', '/a'), await who(p.http, 'sel.test', '/b')], ['a', '404']);
    assert.equal(await who(p.http, 'grpc.test', '/'), '404', 'a listener admitting only GRPCRoute attaches no HTTPRoute');
    let doc = await debugGateway();
    assert.deepEqual([accepted(doc, 'a'), accepted(doc, 'b'), accepted(doc, 'g'), accepted(doc, 'alt')], ['Accepted', 'NotAllowedByListeners', 'NotAllowedByListeners', 'NoMatchingParent']);
    await writeManifests(dir, 'all.yaml', objects({ 'gateway-access': 'yes' }));
    await until('sel.test/b served by b', async () => (await who(p.http, 'sel.test', '/b')) === 'b');
    doc = await debugGateway();
    assert.equal(accepted(doc, 'b'), 'Accepted');
    assert.equal(doc.gateways[0]?.listeners[0]?.attachedRoutes, 2);
  });

  test("/debug/gateway: Gateway conditions and addresses, each listener with kinds, routes and the specification's reasons", async () => {
    const doc = await debugGateway();
    assert.deepEqual(
      doc.gatewayClasses.map((c) => `${c.name} ${c.conditions.map((x) => `${x.type}=${x.status}/${x.reason}`).join(' ')}`),
      ['portico Accepted=True/Accepted'],
    );
    const g = doc.gateways[0];
    assert.deepEqual(
      [g?.namespace, g?.name, g?.addresses],
      [
        'default',
        'web',
        [
          { type: 'Hostname', value: 'lb.example.test' },
          { type: 'IPAddress', value: '192.0.2.10' },
        ],
      ],
    );
    assert.deepEqual(
      g?.conditions.map((c) => `${c.type}=${c.status}/${c.reason}`),
      ['Accepted=True/ListenersNotValid', 'Programmed=True/Programmed'],
    );
    assert.deepEqual(
      g?.listeners.map((l) => [l.name, l.supportedKinds.map((k) => k.kind).join(','), l.attachedRoutes, l.conditions.map((c) => `${c.type}=${c.status}/${c.reason}`).join(' ')]),
      [
        ['sel', 'HTTPRoute', 2, 'Accepted=True/Accepted Programmed=True/Programmed ResolvedRefs=True/ResolvedRefs Conflicted=False/NoConflicts'],
        ['grpc', '', 0, 'Accepted=True/Accepted Programmed=False/Invalid ResolvedRefs=False/InvalidRouteKinds Conflicted=False/NoConflicts'],
        ['alt', 'HTTPRoute', 1, 'Accepted=False/PortUnavailable Programmed=False/Invalid ResolvedRefs=True/ResolvedRefs Conflicted=False/NoConflicts'],
      ],
    );
    assert.match(g?.listeners[2]?.conditions[0]?.message ?? '', /port 8080 \(local port \d+, --gateway-port-map\) is Portico's own \(--default-server-port\)/);
    assert.ok(
      p.output.some((l) => l.includes('InvalidRouteKinds: gateway.networking.k8s.io/GRPCRoute is not supported')),
      'a Warning names the kind',
    );
  });

  test('`portico gateway` shows the same status: --json is /debug/gateway, the tables carry the same conditions', async () => {
    const doc = await debugGateway();
    assert.deepEqual(JSON.parse(await cli('--json')), doc);
    const text = await cli();
    const rows = text.split('\n').map((l) => l.trim().split(/ {2,}/));
    assert.deepEqual(
      rows.find((r) => r[0] === 'default/web' && r[1] === 'alt'),
      ['default/web', 'alt', 'HTTPRoute', '1', 'Accepted!=PortUnavailable Programmed!=Invalid ResolvedRefs=ResolvedRefs Conflicted!=NoConflicts'],
    );
    assert.deepEqual(
      rows.find((r) => r[0] === 'team-b/b'),
      ['team-b/b', 'default/web/sel', 'Accepted=Accepted ResolvedRefs=ResolvedRefs'],
    );
    assert.deepEqual(
      rows.find((r) => r[0] === 'default/web' && r.length === 3),
      ['default/web', 'lb.example.test,192.0.2.10', 'Accepted=ListenersNotValid Programmed=Programmed'],
    );
    assert.ok(text.includes('HTTPRoute team-a/alt → default/web/alt: Accepted NoMatchingParent:'), 'the reason of every condition not True is spelled out');
  });

  test('--enable-gateway-api=false: /debug/gateway is 404 and `portico gateway` says why, exit 1', async () => {
    const off = await startPortico(['--manifests', dir, '--enable-gateway-api=false']);
    try {
      const r = await get(off.healthz, 'localhost', '/debug/gateway');
      assert.deepEqual([r.status, r.body], [404, 'not found: the Gateway API is off (--enable-gateway-api=false)\n']);
      const failed = await run(process.execPath, [join(REPO, 'bin/portico.js'), 'gateway', '--url', `http://127.0.0.1:${off.healthz}`], { timeout: 20_000 }).then(
        () => undefined,
        (err: unknown) => err as { code: number; stderr: string },
      );
      assert.equal(failed?.code, 1);
      assert.match(failed?.stderr ?? '', /answered 404: not found: the Gateway API is off/);
      assert.equal(await who(off.http, 'sel.test', '/a'), '404', 'and no HTTPRoute is served');
    } finally {
      assert.equal(await off.stop(), 0);
    }
  });
});
