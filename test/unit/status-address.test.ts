// Status address fixtures: each case's input.yaml (flags + objects) against its expected addresses.json, whole.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parse } from 'yaml';
import type { Node, Pod, Service } from 'kubernetes-types/core/v1.js';
import { controllerPods, sameAddresses, statusAddresses } from '../../src/status/address.js';
import { expected, fixtureCases } from '../support/fixtures.js';

interface Case {
  flags: { publishStatusAddress?: string[]; publishService?: string; reportNodeInternalIp?: boolean; pod: string };
  objects: (Service | Pod | Node)[];
}

for (const dir of fixtureCases('status')) {
  test(`status address fixture ${basename(dir)}`, () => {
    const c = parse(readFileSync(join(dir, 'input.yaml'), 'utf8')) as Case;
    const of = <T>(kind: string) => c.objects.filter((o) => o.kind === kind) as T[];
    const named = (ref: string) => (o: Service | Pod) => `${o.metadata?.namespace}/${o.metadata?.name}` === ref;
    const pods = of<Pod>('Pod');
    const self = pods.find(named(c.flags.pod)) ?? { metadata: { name: c.flags.pod.split('/')[1], namespace: c.flags.pod.split('/')[0] } };
    const addresses = statusAddresses({
      publishStatusAddress: c.flags.publishStatusAddress ?? [],
      publishServiceSet: c.flags.publishService !== undefined,
      publishService: c.flags.publishService ? of<Service>('Service').find(named(c.flags.publishService)) : undefined,
      pods: controllerPods(self, pods),
      nodes: of<Node>('Node'),
      useInternalIp: c.flags.reportNodeInternalIp ?? false,
    });
    const actual = `${JSON.stringify(addresses ?? null, null, 2)}\n`;
    assert.equal(actual, expected(dir, 'addresses.json', actual));
  });
}

test('sameAddresses ignores order and duplicates, and tells IPs from hostnames', () => {
  assert.ok(sameAddresses([{ ip: '1.1.1.1' }, { hostname: 'a' }], [{ hostname: 'a' }, { ip: '1.1.1.1' }, { ip: '1.1.1.1' }]));
  assert.ok(!sameAddresses([{ ip: '1.1.1.1' }], [{ hostname: '1.1.1.1' }]));
  assert.ok(!sameAddresses([{ ip: '1.1.1.1' }], []));
  assert.ok(sameAddresses([], []));
});
