// ListenerSet status against the API server double: the leader writes Accepted/Programmed and per-listener status on
// ListenerSets naming Portico's Gateways (NotAllowed where allowedListeners refuse the namespace), the Gateway's
// status.attachedListenerSets, an HTTPRoute's parent entry for a ListenerSet; again only when something changed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { KubeConfig } from '@kubernetes/client-node';
import { ApiServerDouble } from '../support/apiserver/index.js';
import { createLogger } from '../../src/log.js';
import { GatewayStatusWriter } from '../../src/kube/gateway-status.js';
import type { Snapshot } from '../../src/model/input.js';
import { service } from '../support/objects.js';
import { gateway, gatewayClass, httpRoute, PORTICO_GATEWAY_CONTROLLER } from '../support/gateway.js';
import { namespace } from './cluster.js';

type Cond = { type: string; status: string; reason: string; observedGeneration?: number };
type SetStatus = { conditions?: Cond[]; listeners?: { name: string; attachedRoutes: number; conditions: Cond[] }[] };
const brief = (cs: readonly Cond[] | undefined): string => (cs ?? []).map((c) => `${c.type}=${c.status}/${c.reason}`).join(' ');

function listenerSet(name: string, ns: string, hostname: string): unknown {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'ListenerSet',
    metadata: { name, namespace: ns },
    spec: { parentRef: { name: 'web', namespace: 'default' }, listeners: [{ name: 'extra', port: 80, protocol: 'HTTP', hostname, allowedRoutes: { namespaces: { from: 'Same' } } }] },
  };
}

describe('ListenerSet status through the API server double', () => {
  const api = new ApiServerDouble({ bookmarkIntervalMs: 0 });
  const kc = new KubeConfig();
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
    listenerSets: api.list('ListenerSet'),
    namespaces: api.list('Namespace') as never[],
  });
  const setStatus = (ns: string, name: string): SetStatus => (api.get('ListenerSet', ns, name) as { status?: SetStatus } | undefined)?.status ?? {};
  const pass = async (w: GatewayStatusWriter): Promise<number> => {
    const before = api.writes().length;
    w.update(snapshot());
    await w.idle();
    return api.writes().length - before;
  };

  before(async () => {
    await api.start();
    kc.loadFromString(api.kubeconfig());
    for (const ns of ['default', 'team-a']) {
      put(namespace(ns));
      put(service('app', ns));
    }
    put(gatewayClass('portico'));
    const web = gateway('web', [{ name: 'http', hostname: 'web.test' }]) as { spec: Record<string, unknown> };
    put({ ...web, spec: { ...web.spec, allowedListeners: { namespaces: { from: 'Same' } } } });
    put(listenerSet('mine', 'default', 'mine.test'));
    put(listenerSet('theirs', 'team-a', 'theirs.test'));
    // a Gateway Portico does not serve (an address type it cannot honour): its ListenerSet is ParentNotAccepted
    const odd = gateway('odd', [{ name: 'http' }]) as { spec: Record<string, unknown> };
    put({ ...odd, spec: { ...odd.spec, addresses: [{ type: 'NamedAddress', value: 'x' }], allowedListeners: { namespaces: { from: 'All' } } } });
    const orphan = listenerSet('orphan', 'default', 'orphan.test') as { spec: Record<string, unknown> };
    put({ ...orphan, spec: { ...orphan.spec, parentRef: { name: 'odd' } } });
    put(httpRoute('on-mine', { parentRefs: [{ kind: 'ListenerSet', group: 'gateway.networking.k8s.io', name: 'mine' }], rules: [{ backendRefs: [{ name: 'app', port: 80 }] }] }, 'default'));
  });
  after(async () => {
    await api.stop();
  });

  test('ListenerSets, attachedListenerSets and a route parent of kind ListenerSet written by the leader, once', async () => {
    const w = new GatewayStatusWriter({ kc, log: createLogger('warn'), isLeader: () => true, controllerName: PORTICO_GATEWAY_CONTROLLER, now: () => new Date('2026-03-01T00:00:00Z') });
    try {
      assert.ok((await pass(w)) >= 4, 'the class, the Gateway, two ListenerSets and the route');
      assert.equal(brief(setStatus('default', 'mine').conditions), 'Accepted=True/Accepted Programmed=True/Programmed');
      assert.deepEqual(
        setStatus('default', 'mine').listeners?.map((l) => `${l.name} ${l.attachedRoutes} ${brief(l.conditions)}`),
        ['extra 1 Accepted=True/Accepted Programmed=True/Programmed ResolvedRefs=True/ResolvedRefs Conflicted=False/NoConflicts'],
      );
      assert.equal(brief(setStatus('team-a', 'theirs').conditions), 'Accepted=False/NotAllowed Programmed=False/NotAllowed');
      assert.equal(brief(setStatus('default', 'orphan').conditions), 'Accepted=False/ParentNotAccepted Programmed=False/ParentNotAccepted');
      assert.equal((api.get('Gateway', 'default', 'web') as { status?: { attachedListenerSets?: number } }).status?.attachedListenerSets, 1);
      const parents = (api.get('HTTPRoute', 'default', 'on-mine') as { status?: { parents?: { parentRef: { kind?: string }; conditions: Cond[] }[] } }).status?.parents ?? [];
      assert.deepEqual(
        parents.map((p) => `${p.parentRef.kind ?? ''} ${p.conditions.find((c) => c.type === 'Accepted')?.reason ?? ''}`),
        ['ListenerSet Accepted'],
      );
      assert.equal(await pass(w), 0, 'nothing changed: nothing written');
    } finally {
      await w.stop();
    }
  });
});
