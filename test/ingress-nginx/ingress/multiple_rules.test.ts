// ingress-nginx e2e ingress/multiple_rules.go: $service_name names the Service of the rule that served a request,
// per host of one Ingress: read here through log-format-upstream.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { backendObjects } from '../../support/manifests.js';
import { ingress } from '../../support/objects.js';
import { until } from '../../support/portico.js';
import { startSuite, type Suite } from '../harness.js';

void describe('ingress/multiple_rules.go', () => {
  let s: Suite;
  before(async () => {
    s = await startSuite({ config: { 'log-format-upstream': '$host $request_uri service=$service_name' } });
  });
  after(() => s.stop());

  test('should set the correct $service_name NGINX variable', async () => {
    const rule = (host: string, service: string) => ({ host, paths: [{ path: '/', type: 'Prefix' as const, service }] });
    await s.put(
      'ingress.json',
      [
        ...backendObjects('first-service', s.echo.port),
        ...backendObjects('second-service', s.echo.port),
        ingress('simh', { className: 'portico', rules: [rule('first.host', 'first-service'), rule('second.host', 'second-service')] }),
      ],
      async () => (await s.get('first.host', '/')).status === 200 && (await s.get('second.host', '/')).status === 200,
    );
    const id = `${Date.now()}`;
    for (const h of ['first.host', 'second.host']) assert.equal((await s.get(h, `/exact-${id}`)).status, 200);
    const log = () => readFile(join(s.portico.workDir, 'logs/access.log'), 'utf8');
    await until('both requests logged', async () => (await log()).split('\n').filter((l) => l.includes(`/exact-${id}`)).length === 2, 10_000);
    const lines = (await log()).split('\n').filter((l) => l.includes(`/exact-${id}`));
    assert.ok(
      lines.some((l) => l.startsWith('first.host') && l.endsWith('service=first-service')),
      lines.join('\n'),
    );
    assert.ok(
      lines.some((l) => l.startsWith('second.host') && l.endsWith('service=second-service')),
      lines.join('\n'),
    );
  });
});
