// ingress-nginx e2e settings/proxy_host.go: ingress-nginx sets $proxy_host to its upstream's name (namespace-service-
// port) and a configuration snippet copies it into a response header. Portico's safe snippets read only the request's
// own variables, never the controller's (docs/adr/0012): the snippet is refused with a Warning naming $proxy_host and
// its Ingress is not served (a refused snippet fails closed). Without the snippet the Ingress is served, and the
// backend sees the Host it is given (the request's, or upstream-vhost).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { until } from '../../support/portico.js';
import { ann, echoed, ing, startSuite, type Suite } from '../harness.js';

const SNIPPET = 'more_set_headers "Custom-Header: $proxy_host";';

void describe('settings/proxy_host.go', () => {
  let s: Suite;
  before(async () => {
    s = await startSuite({ config: { 'allow-snippet-annotations': 'true' } });
  });
  after(() => s.stop());

  /** The snippet is refused and `host` not served; without the snippet the backend answers and sees `hostSeen`. */
  const check = async (host: string, extra: Record<string, string>, hostSeen: string) => {
    await s.dir.write(`${host}.json`, [ing(host, host, { annotations: ann({ 'configuration-snippet': SNIPPET, ...extra }) })]);
    const warned = (l: string) => l.includes('"level":40') && l.includes(`Ingress default/${host} `) && l.includes('$proxy_host is not on the list of variables');
    await until('the Warning on the snippet', () => s.portico.output.some(warned), 20_000);
    const refused = await s.get(host, '/');
    assert.equal(refused.status, 404);
    assert.equal(refused.headers['custom-header'], undefined);
    await s.put(`${host}.json`, [ing(host, host, { annotations: ann(extra) })], async () => {
      const r = await s.get(host, '/');
      return r.status === 200 && echoed(r).headers['host'] === hostSeen;
    });
  };

  test('should exist a proxy_host', async () => {
    await check('proxy-host', {}, 'proxy-host');
  });

  test('should exist a proxy_host using the upstream-vhost annotation value', async () => {
    await check('proxy-host-vhost', { 'upstream-vhost': 'different.host' }, 'different.host');
  });
});
