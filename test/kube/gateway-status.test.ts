// Gateway status against the API server double: Accepted, Programmed and addresses of the Gateway, and per listener
// supportedKinds, attachedRoutes and the conditions Accepted, Programmed, ResolvedRefs, Conflicted with the
// specification's reasons, each with observedGeneration; allowedRoutes Selector over Namespace labels; written by the
// leader only and again only when something changed (a Namespace's labels, a route, the addresses).
import { after, before, describe, test } from 'node:test';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import assert from 'node:assert/strict';
import { KubeConfig } from '@kubernetes/client-node';
import { ApiServerDouble } from '../support/apiserver/index.js';
import { createLogger } from '../../src/log.js';
import { GatewayStatusWriter } from '../../src/kube/gateway-status.js';
import { desiredGatewayStatus } from '../../src/status/gateway.js';
import type { Snapshot } from '../../src/model/input.js';
import type { StatusAddress } from '../../src/status/address.js';
import { service } from '../support/objects.js';
import { gateway, gatewayClass, httpRoute, PORTICO_GATEWAY_CONTROLLER } from '../support/gateway.js';
import { namespace } from './cluster.js';
import { until } from '../apiserver/helpers.js';

type Cond = { type: string; status: string; reason: string; observedGeneration?: number; lastTransitionTime?: string };
type ListenerStatus = { name: string; supportedKinds: { group?: string; kind: string }[]; attachedRoutes: number; conditions: Cond[] };
type GatewayStatus = { addresses?: { type: string; value: string }[]; conditions?: Cond[]; listeners?: ListenerStatus[] };
type Parent = { parentRef: { name: string; sectionName?: string }; controllerName: string; conditions: Cond[] };

const brief = (cs: readonly Cond[]): string => cs.map((c) => `${c.type}=${c.status}/${c.reason}`).join(' ');

describe('Gateway status through the API server double', () => {
  const api = new ApiServerDouble({ bookmarkIntervalMs: 0 });
  const kc = new KubeConfig();
  let leading = true;
  let addresses: StatusAddress[] | undefined = [{ ip: '203.0.113.7' }, { hostname: 'lb.example.test' }];
  const put = (o: unknown): void => {
    api.put(o as never);
  };
  const snapshot = (): Snapshot => ({
    ingresses: [],
    ingressClasses: [],
    services: api.list('Service') as never[],
    endpointSlices: [],
    secrets: api.list('Secret') as never[],
    configMaps: [],
    gatewayClasses: api.list('GatewayClass'),
    gateways: api.list('Gateway'),
    httpRoutes: api.list('HTTPRoute'),
    referenceGrants: [],
    namespaces: api.list('Namespace') as never[],
  });
  const status = (name: string): GatewayStatus => (api.get('Gateway', 'default', name) as { status?: GatewayStatus } | undefined)?.status ?? {};
  /** Each listener as `name kinds attached conditions`. */
  const listeners = (name: string): string[] => (status(name).listeners ?? []).map((l) => `${l.name} [${l.supportedKinds.map((k) => k.kind).join(',')}] ${l.attachedRoutes} ${brief(l.conditions)}`);
  const accepted = (name: string, ns: string): string => {
    const parents = (api.get('HTTPRoute', ns, name) as { status?: { parents?: Parent[] } } | undefined)?.status?.parents ?? [];
    return parents.map((p) => p.conditions.find((c) => c.type === 'Accepted')?.reason ?? '?').join(',');
  };
  const route = (name: string, ns: string, sectionName: string): unknown =>
    httpRoute(name, { parentRefs: [{ name: 'web', namespace: 'default', sectionName }], rules: [{ backendRefs: [{ name: 'app', port: 80 }] }] }, ns);
  type Crd = { metadata: { name: string; annotations: Record<string, string> } };
  /** deploy/gateway-api/'s CRDs, as kustomization.yaml lists them. */
  const shippedCrds = async (): Promise<Crd[]> => {
    const dir = fileURLToPath(new URL('../../../deploy/gateway-api/', import.meta.url));
    const files = (parse(await readFile(join(dir, 'kustomization.yaml'), 'utf8')) as { resources: string[] }).resources;
    return Promise.all(files.map(async (f) => parse(await readFile(join(dir, f), 'utf8')) as Crd));
  };
  const annotated = (crd: Crd, key: string, value: string): Crd => ({
    ...crd,
    metadata: { ...crd.metadata, annotations: { ...crd.metadata.annotations, [`gateway.networking.k8s.io/${key}`]: value } },
  });
  const classStatus = (): (Cond & { message: string })[] => (api.get('GatewayClass', '', 'portico') as { status?: { conditions?: (Cond & { message: string })[] } }).status?.conditions ?? [];
  const classConditions = (): string =>
    classStatus()
      .map((c) => `${c.type}=${c.status}/${c.reason}`)
      .join(' ');
  /** The GatewayClass conditions, once the writer has the store's current objects (its writes need their resourceVersion). */
  const classNow = (w: GatewayStatusWriter): string => {
    w.update(snapshot());
    return classConditions();
  };
  const classMessage = (): string => classStatus().find((c) => c.type === 'SupportedVersion')?.message ?? '';
  const writer = (experimental = false): GatewayStatusWriter =>
    new GatewayStatusWriter({
      kc,
      experimental,
      log: createLogger('warn'),
      isLeader: () => leading,
      controllerName: PORTICO_GATEWAY_CONTROLLER,
      now: () => new Date('2026-03-01T00:00:00Z'),
      addresses: () => addresses,
    });
  const pass = async (w: GatewayStatusWriter): Promise<number> => {
    const before = api.writes().length;
    w.update(snapshot());
    await w.idle();
    return api.writes().length - before;
  };

  before(async () => {
    await api.start();
    kc.loadFromString(api.kubeconfig());
    put(namespace('default'));
    put(namespace('team-a', { team: 'a', env: 'prod' }));
    put(namespace('team-b', { team: 'b', env: 'prod' }));
    put(namespace('sandbox', { env: 'dev' }));
    for (const ns of ['default', 'team-a', 'team-b', 'sandbox']) put(service('app', ns));
    put(gatewayClass('portico'));
    const web = gateway('web', [
      { name: 'http' },
      { name: 'prod', hostname: 'prod.test', from: 'Selector' },
      { name: 'odd-port', port: 10254 },
      { name: 'grpc-only', hostname: 'grpc.test' },
      { name: 'mixed', hostname: 'mixed.test', from: 'All' },
      { name: 'tls', protocol: 'HTTPS', hostname: 'secure.test', certificateRefs: [{ name: 'missing-cert' }] },
      { name: 'tls-other', protocol: 'HTTPS', hostname: 'other.test', certificateRefs: [{ name: 'cert', namespace: 'team-a' }] },
      { name: 'dup-1', hostname: 'dup.test' },
      { name: 'dup-2', hostname: 'dup.test' },
    ]) as { spec: { listeners: Record<string, unknown>[] } };
    const ls = web.spec.listeners;
    ls[1] = { ...ls[1], allowedRoutes: { namespaces: { from: 'Selector', selector: { matchLabels: { env: 'prod' }, matchExpressions: [{ key: 'team', operator: 'In', values: ['a', 'b'] }] } } } };
    ls[3] = { ...ls[3], allowedRoutes: { kinds: [{ kind: 'GRPCRoute' }] } };
    ls[4] = { ...ls[4], allowedRoutes: { namespaces: { from: 'All' }, kinds: [{ kind: 'HTTPRoute' }, { kind: 'TLSRoute' }] } };
    put(web);
    put(route('home', 'default', 'http'));
    put(route('a', 'team-a', 'prod'));
    put(route('b', 'team-b', 'prod'));
    put(route('dev', 'sandbox', 'prod'));
    put(route('grpc', 'default', 'grpc-only'));
    put(route('mixed', 'sandbox', 'mixed'));
  });
  after(async () => {
    await api.stop();
  });

  test('conditions, reasons, supportedKinds, attachedRoutes and addresses; once per change; leader only', async () => {
    const w = writer();
    assert.equal(await pass(w), 8, 'the class, the Gateway and six routes');
    const s = status('web');
    assert.deepEqual(s.addresses, [
      { type: 'IPAddress', value: '203.0.113.7' },
      { type: 'Hostname', value: 'lb.example.test' },
    ]);
    assert.equal(brief(s.conditions ?? []), 'Accepted=True/ListenersNotValid Programmed=True/Programmed');
    assert.deepEqual(listeners('web'), [
      'http [HTTPRoute] 1 Accepted=True/Accepted Programmed=True/Programmed ResolvedRefs=True/ResolvedRefs Conflicted=False/NoConflicts',
      'prod [HTTPRoute] 2 Accepted=True/Accepted Programmed=True/Programmed ResolvedRefs=True/ResolvedRefs Conflicted=False/NoConflicts',
      'odd-port [HTTPRoute] 0 Accepted=False/PortUnavailable Programmed=False/Invalid ResolvedRefs=True/ResolvedRefs Conflicted=False/NoConflicts',
      'grpc-only [] 0 Accepted=True/Accepted Programmed=False/Invalid ResolvedRefs=False/InvalidRouteKinds Conflicted=False/NoConflicts',
      'mixed [HTTPRoute] 1 Accepted=True/Accepted Programmed=True/Programmed ResolvedRefs=False/InvalidRouteKinds Conflicted=False/NoConflicts',
      'tls [HTTPRoute,GRPCRoute] 0 Accepted=True/Accepted Programmed=False/Invalid ResolvedRefs=False/InvalidCertificateRef Conflicted=False/NoConflicts',
      'tls-other [HTTPRoute,GRPCRoute] 0 Accepted=True/Accepted Programmed=False/Invalid ResolvedRefs=False/RefNotPermitted Conflicted=False/NoConflicts',
      'dup-1 [HTTPRoute] 0 Accepted=True/Accepted Programmed=False/Invalid ResolvedRefs=True/ResolvedRefs Conflicted=True/HostnameConflict',
      'dup-2 [HTTPRoute] 0 Accepted=True/Accepted Programmed=False/Invalid ResolvedRefs=True/ResolvedRefs Conflicted=True/HostnameConflict',
    ]);
    assert.ok([...(s.conditions ?? []), ...(s.listeners ?? []).flatMap((l) => l.conditions)].every((c) => c.observedGeneration === 1 && c.lastTransitionTime === '2026-03-01T00:00:00Z'));
    assert.deepEqual(
      ['home/default', 'a/team-a', 'b/team-b', 'dev/sandbox', 'grpc/default', 'mixed/sandbox'].map((k) => {
        const [name = '', ns = ''] = k.split('/');
        return `${k} ${accepted(name, ns)}`;
      }),
      ['home/default Accepted', 'a/team-a Accepted', 'b/team-b Accepted', 'dev/sandbox NotAllowedByListeners', 'grpc/default NotAllowedByListeners', 'mixed/sandbox Accepted'],
    );

    assert.equal(await pass(w), 0, 'nothing changed: nothing written');

    put(namespace('team-b', { team: 'b', env: 'staging' }));
    assert.equal(await pass(w), 2, 'a Namespace relabelled: the Gateway (attachedRoutes) and the one route');
    assert.equal(accepted('b', 'team-b'), 'NotAllowedByListeners');
    assert.match(listeners('web')[1] ?? '', /^prod \[HTTPRoute\] 1 /);

    addresses = undefined; // the --publish-service Service is gone: addresses are left as they are
    assert.equal(await pass(w), 0);
    assert.equal(status('web').addresses?.length, 2);
    addresses = [{ ip: '203.0.113.8' }];
    assert.equal(await pass(w), 1, 'new address: one write');
    assert.deepEqual(status('web').addresses, [{ type: 'IPAddress', value: '203.0.113.8' }]);
    assert.equal(brief(status('web').conditions ?? []), 'Accepted=True/ListenersNotValid Programmed=True/Programmed');

    const changed = gateway('web', [{ name: 'http' }]);
    put({ ...changed, spec: { ...(changed['spec'] as object), addresses: [{ type: 'IPAddress', value: '198.51.100.1' }] } });
    assert.equal(await pass(w), 6, 'the Gateway and the five routes whose listener went away');
    const g = status('web');
    assert.equal(brief(g.conditions ?? []), 'Accepted=True/Accepted Programmed=False/AddressNotUsable');
    assert.ok(
      (g.conditions ?? []).every((c) => c.observedGeneration === 2),
      'observedGeneration follows the Gateway',
    );
    assert.deepEqual(listeners('web'), ['http [HTTPRoute] 1 Accepted=True/Accepted Programmed=True/Programmed ResolvedRefs=True/ResolvedRefs Conflicted=False/NoConflicts']);

    leading = false;
    put(gateway('web', [{ name: 'http', port: 81 }]));
    assert.equal(await pass(w), 0, 'a replica that is not the leader writes nothing');
    await w.stop();
  });

  test('addresses that change without a sync (node addresses are re-read periodically) reach the Gateway on the next check', async () => {
    leading = true;
    const w = writer();
    await pass(w);
    addresses = [{ ip: '203.0.113.9' }];
    await w.start(20); // no update(): only the periodic check can see the new address
    await until(() => status('web').addresses?.[0]?.value === '203.0.113.9', 'the periodic check writes the new address', 5000);
    await w.stop();
  });

  test('Selector expressions as Kubernetes reads them: In, NotIn, Exists, DoesNotExist, ANDed with matchLabels; an unknown operator is refused', () => {
    const ns = (name: string, labels: Record<string, string>): unknown => namespace(name, labels);
    const sel = (name: string, selector: Record<string, unknown>): Record<string, unknown> => ({
      name,
      port: 80,
      protocol: 'HTTP',
      hostname: `${name}.test`,
      allowedRoutes: { namespaces: { from: 'Selector', selector } },
    });
    const g = {
      ...gateway('sel', []),
      spec: {
        gatewayClassName: 'portico',
        listeners: [
          sel('in', { matchExpressions: [{ key: 'tier', operator: 'In', values: ['web', 'api'] }] }),
          sel('notin', { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['web'] }] }),
          sel('exists', { matchExpressions: [{ key: 'tier', operator: 'Exists' }] }),
          sel('absent', { matchExpressions: [{ key: 'tier', operator: 'DoesNotExist' }] }),
          sel('both', { matchLabels: { env: 'prod' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['api'] }] }),
          sel('by-name', { matchLabels: { 'kubernetes.io/metadata.name': 'n-web' } }),
          sel('bad', { matchExpressions: [{ key: 'tier', operator: 'Like', values: ['w*'] }] }),
        ],
      },
    };
    const names = ['n-web', 'n-api', 'n-none', 'n-api-dev'];
    const snap = {
      ...snapshot(),
      gateways: [g],
      httpRoutes: names.map((n) => httpRoute('r', { parentRefs: [{ name: 'sel', namespace: 'default' }] }, n)),
      namespaces: [ns('n-web', { tier: 'web', env: 'prod' }), ns('n-api', { tier: 'api', env: 'prod' }), ns('n-none', {}), ns('n-api-dev', { tier: 'api', env: 'dev' })],
    } as unknown as Snapshot;
    const got = desiredGatewayStatus(snap, PORTICO_GATEWAY_CONTROLLER).gateways.get('default/sel')?.listeners ?? [];
    assert.deepEqual(
      got.map((l) => `${l.name} ${l.attachedRoutes} ${l.conditions[0]?.reason ?? ''}`),
      ['in 3 Accepted', 'notin 3 Accepted', 'exists 3 Accepted', 'absent 1 Accepted', 'both 1 Accepted', 'by-name 1 Accepted', 'bad 0 UnsupportedValue'],
    );
    assert.match(got[6]?.conditions[0]?.message ?? '', /unknown operator "Like"/);
  });

  test("GatewayClass SupportedVersion from the installed CRDs' bundle-version: True for deploy/gateway-api/ (v1.6.1), False for an older or newer release, Accepted True throughout", async () => {
    leading = true;
    const crds = await shippedCrds();
    for (const crd of crds) put(crd);
    const w = writer();
    await w.start(20);
    await pass(w);
    await until(() => classNow(w) === 'Accepted=True/Accepted SupportedVersion=True/SupportedVersion', 'SupportedVersion True', 5000);
    assert.match(classMessage(), /v1\.6\.1 is supported/);
    const routes = crds.find((c) => c.metadata.name === 'httproutes.gateway.networking.k8s.io');
    assert.ok(routes);
    // an operator who upgraded Portico but not the CRDs (v1.5): told so, and still served (Accepted stays True)
    put(annotated(routes, 'bundle-version', 'v1.5.1'));
    await until(() => classNow(w) === 'Accepted=True/Accepted SupportedVersion=False/UnsupportedVersion', 'SupportedVersion False for v1.5.1', 5000);
    assert.match(classMessage(), /CRD httproutes.gateway.networking.k8s.io: bundle version v1.5.1 is older than the v1.6 Portico pins/);
    put(annotated(routes, 'bundle-version', 'v1.6.0'));
    await until(() => classNow(w) === 'Accepted=True/Accepted SupportedVersion=True/SupportedVersion', 'SupportedVersion True for a v1.6 patch', 5000);
    put(annotated(routes, 'bundle-version', 'v1.7.0'));
    await until(() => classNow(w) === 'Accepted=True/Accepted SupportedVersion=False/UnsupportedVersion', 'SupportedVersion False for v1.7.0', 5000);
    assert.match(classMessage(), /bundle version v1.7.0 is newer than the v1.6 Portico pins/);
    put(annotated(routes, 'bundle-version', 'v1.1.0'));
    await until(() => classNow(w).length > 0 && /bundle version v1.1.0/.test(classMessage()), 'SupportedVersion names v1.1.0', 5000);
    // a CRD of a kind some releases lack may be missing (only the four Portico needs must be there)
    put(annotated(routes, 'bundle-version', 'v1.6.1'));
    api.remove('CustomResourceDefinition', '', 'listenersets.gateway.networking.k8s.io');
    await until(() => classNow(w) === 'Accepted=True/Accepted SupportedVersion=True/SupportedVersion', 'SupportedVersion True without ListenerSet', 5000);
    api.remove('CustomResourceDefinition', '', 'gateways.gateway.networking.k8s.io');
    await until(() => classNow(w).length > 0 && /gateways.gateway.networking.k8s.io: not installed/.test(classMessage()), 'SupportedVersion False without Gateways', 5000);
    await w.stop();
  });

  test('--gateway-api-experimental-features: experimental-channel CRDs of v1.6 are supported with it, UnsupportedVersion without it', async () => {
    leading = true;
    const crds = await shippedCrds();
    for (const crd of crds) put(annotated(crd, 'channel', 'experimental'));
    const standard = writer(false);
    await standard.start(20);
    await pass(standard);
    await until(() => classNow(standard) === 'Accepted=True/Accepted SupportedVersion=False/UnsupportedVersion', 'experimental channel refused', 5000);
    assert.match(classMessage(), /channel experimental; Portico reads the standard channel/);
    await standard.stop();
    const experimental = writer(true);
    await experimental.start(20);
    await pass(experimental);
    await until(() => classNow(experimental) === 'Accepted=True/Accepted SupportedVersion=True/SupportedVersion', 'experimental channel accepted', 5000);
    assert.match(classMessage(), /v1\.6\.1 \(experimental\) is supported/);
    await experimental.stop();
  });
});
