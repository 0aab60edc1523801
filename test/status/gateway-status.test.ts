// Gateway API status against the API server double, in-process: GatewayClass Accepted and HTTPRoute per-parent
// Accepted/ResolvedRefs with observedGeneration and the specification's reasons; leader only, once per real change,
// other controllers' parent entries kept, other classes' objects never written.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { KubeConfig } from '@kubernetes/client-node';
import { ApiServerDouble } from '../support/apiserver/index.js';
import { createLogger } from '../../src/log.js';
import { GatewayStatusWriter } from '../../src/kube/gateway-status.js';
import type { Snapshot } from '../../src/model/input.js';
import { service } from '../support/objects.js';
import { gateway, gatewayClass, httpRoute, PORTICO_GATEWAY_CONTROLLER } from '../support/gateway.js';

type Cond = { type: string; status: string; reason: string; observedGeneration?: number; lastTransitionTime?: string };
type Parent = { parentRef: { name: string; sectionName?: string }; controllerName: string; conditions: Cond[] };

describe('Gateway API status', () => {
  const api = new ApiServerDouble({ bookmarkIntervalMs: 0 });
  const kc = new KubeConfig();
  let leading = false;
  const put = (o: unknown): void => {
    api.put(o as never);
  };
  const snapshot = (): Snapshot => ({
    ingresses: [],
    ingressClasses: [],
    services: api.list('Service') as never[],
    endpointSlices: [],
    secrets: [],
    configMaps: [],
    gatewayClasses: api.list('GatewayClass'),
    gateways: api.list('Gateway'),
    httpRoutes: api.list('HTTPRoute'),
    referenceGrants: [],
  });
  const parents = (name: string, ns = 'default'): Parent[] => (api.get('HTTPRoute', ns, name) as { status?: { parents?: Parent[] } } | undefined)?.status?.parents ?? [];
  /** Portico's parent entries as `sectionName Accepted-reason ResolvedRefs-reason`. */
  const reasons = (name: string, ns = 'default'): string[] =>
    parents(name, ns)
      .filter((p) => p.controllerName === PORTICO_GATEWAY_CONTROLLER)
      .map((p) => [p.parentRef.sectionName ?? '-', ...p.conditions.map((c) => `${c.type}=${c.status}/${c.reason}`)].join(' '));
  const backend = (name: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({ rules: [{ backendRefs: [{ name, port: 80, ...extra }] }] });
  const writer = (): GatewayStatusWriter =>
    new GatewayStatusWriter({ kc, log: createLogger('warn'), isLeader: () => leading, controllerName: PORTICO_GATEWAY_CONTROLLER, now: () => new Date('2026-03-01T00:00:00Z') });

  before(async () => {
    await api.start();
    kc.loadFromString(api.kubeconfig());
    put(service('app', 'default'));
    put(service('app', 'team'));
    put(gatewayClass('portico'));
    put(gatewayClass('theirs', 'example.com/other-controller'));
    put(gateway('web', [{ name: 'same' }, { name: 'host', hostname: 'only.test', from: 'All' }, { name: 'odd', port: 8080 }]));
    put(gateway('other', [{ name: 'http' }], { className: 'theirs' }));
    put(httpRoute('ok', { parentRefs: [{ name: 'web', sectionName: 'same' }, { name: 'other' }], ...backend('app') }));
    put(httpRoute('team', { parentRefs: [{ name: 'web', namespace: 'default', sectionName: 'same' }], ...backend('app') }, 'team'));
    put(httpRoute('hosts', { parentRefs: [{ name: 'web', sectionName: 'host' }], hostnames: ['else.test'], ...backend('app') }));
    put(httpRoute('odd', { parentRefs: [{ name: 'web', sectionName: 'odd' }], ...backend('app') }));
    put(httpRoute('missing', { parentRefs: [{ name: 'web', sectionName: 'same' }], ...backend('nope') }));
    put(httpRoute('ungranted', { parentRefs: [{ name: 'web', sectionName: 'same' }], ...backend('app', { namespace: 'shared' }) }));
    put(httpRoute('kind', { parentRefs: [{ name: 'web', sectionName: 'same' }], ...backend('app', { group: 'example.com', kind: 'Bucket' }) }));
    put(httpRoute('theirs', { parentRefs: [{ name: 'other' }], ...backend('app') }));
    const shared = httpRoute('shared', { parentRefs: [{ name: 'web', sectionName: 'same' }, { name: 'other' }], ...backend('app') });
    put({
      ...shared,
      status: {
        parents: [
          {
            parentRef: { name: 'other' },
            controllerName: 'example.com/other-controller',
            conditions: [{ type: 'Accepted', status: 'True', reason: 'Accepted', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' }],
          },
        ],
      },
    });
  });
  after(async () => {
    await api.stop();
  });

  test("only the leader writes, with the specification's reasons and observedGeneration; nothing again until something changes", async () => {
    const w = writer();
    w.update(snapshot());
    await w.idle();
    assert.equal(api.writes().length, 0, 'a follower writes nothing');
    leading = true;
    const stale = snapshot();
    w.update(stale);
    await w.idle();
    const cls = (api.get('GatewayClass', '', 'portico') as { status?: { conditions?: Cond[] } }).status?.conditions ?? [];
    assert.deepEqual(
      cls.map((c) => [c.type, c.status, c.reason, c.observedGeneration, c.lastTransitionTime]),
      [['Accepted', 'True', 'Accepted', 1, '2026-03-01T00:00:00Z']],
    );
    assert.equal((api.get('GatewayClass', '', 'theirs') as { status?: unknown }).status, undefined, "another controller's class is left alone");
    assert.deepEqual(reasons('ok'), ['same Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs'], "only the parent that is Portico's");
    assert.deepEqual(reasons('team', 'team'), ['same Accepted=False/NotAllowedByListeners ResolvedRefs=True/ResolvedRefs']);
    assert.deepEqual(reasons('hosts'), ['host Accepted=False/NoMatchingListenerHostname ResolvedRefs=True/ResolvedRefs']);
    assert.deepEqual(reasons('odd'), ['odd Accepted=False/NoMatchingParent ResolvedRefs=True/ResolvedRefs']);
    assert.deepEqual(reasons('missing'), ['same Accepted=True/Accepted ResolvedRefs=False/BackendNotFound']);
    assert.deepEqual(reasons('ungranted'), ['same Accepted=True/Accepted ResolvedRefs=False/RefNotPermitted']);
    assert.deepEqual(reasons('kind'), ['same Accepted=True/Accepted ResolvedRefs=False/InvalidKind']);
    assert.deepEqual(parents('theirs'), [], 'a route of another class is not written');
    assert.deepEqual(
      parents('shared').map((p) => p.controllerName),
      ['example.com/other-controller', PORTICO_GATEWAY_CONTROLLER],
      "another controller's entry is kept",
    );
    assert.ok(parents('ok')[0]?.conditions.every((c) => c.observedGeneration === 1));
    const first = api.writes().length;
    assert.equal(first, 10, 'the class, the Gateway web (not other, of another class) and eight routes');
    assert.equal((api.get('Gateway', 'default', 'other') as { status?: unknown }).status, undefined, "another controller's Gateway is left alone");
    assert.ok(
      api.writes().every((r) => r.subresource === 'status' || r.path.endsWith('/status')),
      'through the status subresource',
    );
    w.update(stale); // the store has not seen our writes yet
    w.update(snapshot());
    await w.idle();
    assert.equal(api.writes().length, first, 'no write when nothing changed');

    put(httpRoute('missing', { parentRefs: [{ name: 'web', sectionName: 'same' }], ...backend('app') }));
    w.update(snapshot());
    await w.idle();
    assert.equal(api.writes().length, first + 1, 'one write for the one route that changed');
    const cs = parents('missing')[0]?.conditions ?? [];
    assert.deepEqual(
      cs.map((c) => [c.type, c.reason, c.observedGeneration]),
      [
        ['Accepted', 'Accepted', 2],
        ['ResolvedRefs', 'ResolvedRefs', 2],
      ],
    );
    leading = false;
    put(httpRoute('ok', { parentRefs: [{ name: 'web', sectionName: 'host' }], ...backend('app') }));
    w.update(snapshot());
    await w.idle();
    assert.equal(api.writes().length, first + 1, 'a replica that lost the Lease writes nothing');
    await w.stop();
  });
});
