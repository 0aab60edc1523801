// ingress-nginx's $namespace, $ingress_name, $service_name, $service_port and $location_path (render/ingress-vars.ts):
// a regex path holding `$` reaches the access log as written, and nothing is rendered while nothing reads them.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { until } from '../support/portico.js';
import { ann, ing, startSuite, type Suite } from '../ingress-nginx/harness.js';

void describe('ingress variables', () => {
  let s: Suite;
  before(async () => {
    s = await startSuite({ config: { 'log-format-upstream': 'iv $request_uri $namespace/$ingress_name $service_name:$service_port $location_path' } });
    await s.put('re.json', [ing('re', 're.test', { annotations: ann({ 'use-regex': 'true' }), path: '/exact$' })], async () => (await s.get('re.test', '/exact')).status === 200);
  });
  after(() => s.stop());

  test('a regex path with $ is logged as written', async () => {
    assert.equal((await s.get('re.test', '/exact?n=1')).status, 200);
    const log = () => readFile(join(s.portico.workDir, 'logs/access.log'), 'utf8');
    await until('logged', async () => (await log()).includes('iv /exact?n=1 '), 10_000);
    assert.ok((await log()).split('\n').includes('iv /exact?n=1 default/re echo:80 /exact$'), await log());
  });

  test('no map or set is rendered once nothing reads them', async () => {
    await s.config({ 'log-format-upstream': 'iv $request_uri' }, async () => !(await readFile(join(s.portico.workDir, 'nginx.conf'), 'utf8')).includes('portico_ingress'));
    assert.equal((await s.get('re.test', '/exact')).status, 200);
  });
});
