// A running Portico against the API server double: allowedRoutes Selector follows Namespace labels watched from the
// API (a relabel serves a route, through real nginx), and the leader writes the Gateway's status with the address
// of --publish-status-address and attachedRoutes following the labels.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { until, who, type Running } from '../support/portico.js';
import { gateway, gatewayClass, httpRoute } from '../support/gateway.js';
import type { Backend } from '../support/backends.js';
import { namespace, put, serviceObjects, startCluster, type Cluster } from './cluster.js';

type Cond = { type: string; status: string; reason: string };
type GatewayStatus = { addresses?: { type: string; value: string }[]; conditions?: Cond[]; listeners?: { name: string; attachedRoutes: number }[] };

describe('allowedRoutes Selector and Gateway status through the API', () => {
  let c: Cluster;
  let p: Running;
  const status = (): GatewayStatus => (c.api.get('Gateway', 'default', 'web') as { status?: GatewayStatus } | undefined)?.status ?? {};
  const accepted = (name: string, ns: string): string =>
    ((c.api.get('HTTPRoute', ns, name) as { status?: { parents?: { conditions: Cond[] }[] } } | undefined)?.status?.parents ?? [])
      .map((x) => x.conditions.find((k) => k.type === 'Accepted')?.reason ?? '?')
      .join(',');
  const route = (name: string, ns: string, path: string): unknown =>
    httpRoute(name, { parentRefs: [{ name: 'web', namespace: 'default' }], rules: [{ matches: [{ path: { type: 'PathPrefix', value: path } }], backendRefs: [{ name, port: 80 }] }] }, ns);

  before(async () => {
    c = await startCluster(['a', 'b'], ['default', 'team-a', 'team-b']);
    put(c.api, namespace('team-a', { access: 'yes' }));
    put(c.api, namespace('team-b', { access: 'no' }));
    for (const o of serviceObjects('a', c.backends.get('a') as Backend, 'team-a')) put(c.api, o);
    for (const o of serviceObjects('b', c.backends.get('b') as Backend, 'team-b')) put(c.api, o);
    put(c.api, gatewayClass('portico'));
    put(c.api, gateway('web', [{ name: 'sel', hostname: 'sel.test', from: 'Selector', selector: { access: 'yes' } }]));
    put(c.api, route('a', 'team-a', '/a'));
    put(c.api, route('b', 'team-b', '/b'));
    p = await c.portico(['--publish-status-address', '192.0.2.10']);
  });
  after(async () => {
    assert.deepEqual(await c.stop(), [0]);
  });

  test('only the namespace whose labels match is served; its status says so; a relabel is applied while running', async () => {
    await until('sel.test/a served by a', async () => (await who(p.http, 'sel.test', '/a')) === 'a');
    assert.equal(await who(p.http, 'sel.test', '/b'), '404');
    await until('Gateway and route status written', () => status().listeners?.[0]?.attachedRoutes === 1 && accepted('b', 'team-b') === 'NotAllowedByListeners');
    assert.deepEqual(status().addresses, [{ type: 'IPAddress', value: '192.0.2.10' }]);
    assert.deepEqual(
      status().conditions?.map((x) => `${x.type}=${x.status}/${x.reason}`),
      ['Accepted=True/Accepted', 'Programmed=True/Programmed'],
    );
    assert.equal(accepted('a', 'team-a'), 'Accepted');

    put(c.api, namespace('team-b', { access: 'yes' }));
    await until('sel.test/b served by b', async () => (await who(p.http, 'sel.test', '/b')) === 'b');
    await until('status follows the labels', () => status().listeners?.[0]?.attachedRoutes === 2 && accepted('b', 'team-b') === 'Accepted');
    assert.ok(
      c.api.requests().some((r) => r.verb === 'watch' && r.path === '/api/v1/namespaces'),
      'Namespaces are watched',
    );
  });
});
