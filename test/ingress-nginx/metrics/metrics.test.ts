// ingress-nginx e2e metrics/metrics.go: per-request metrics after a request. --exclude-socket-metrics leaves the named
// metrics out of /metrics (a name that does not exist changes nothing); requests for a host no Ingress defines are
// counted under that host only with --metrics-per-undefined-host. Two Porticos: one with both flags, one with neither
// (but an unknown metric name to exclude), as the upstream tests change the controller's arguments.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { until } from '../../support/portico.js';
import { samples, scrape } from '../../support/prometheus.js';
import { ing, startSuite, type Suite } from '../harness.js';

void describe('metrics/metrics.go', () => {
  let flagged: Suite;
  let plain: Suite;
  const host = 'foo.com';
  const wildcardHost = `wildcard.${host}`;
  before(async () => {
    flagged = await startSuite({ args: ['--exclude-socket-metrics=nginx_ingress_controller_request_size,nginx_ingress_controller_header_duration_seconds', '--metrics-per-undefined-host=true'] });
    plain = await startSuite({ args: ['--exclude-socket-metrics=non_existing_metric_does_not_affect_existing_metrics'] });
    for (const s of [flagged, plain]) await s.put('ingresses.json', [ing(host, host)], async () => (await s.get(host, '/')).status === 200);
  });
  after(async () => {
    await flagged.stop();
    await plain.stop();
  });

  test('exclude socket request metrics are absent', async () => {
    assert.equal((await flagged.get(host, '/')).status, 200);
    await until('request counted', async () => samples(await scrape(flagged.portico), 'nginx_ingress_controller_requests', { host }).length > 0, 10_000);
    const scraped = await scrape(flagged.portico);
    assert.deepEqual(
      scraped.families.filter((f) => f.name.startsWith('nginx_ingress_controller_request_size')).map((f) => f.name),
      [],
    );
    assert.equal(samples(scraped, 'nginx_ingress_controller_request_size_count').length, 0);
    // the metrics not named stay
    assert.ok(samples(scraped, 'nginx_ingress_controller_response_size_count', { host }).length > 0);
  });

  test('exclude socket request metrics are present', async () => {
    assert.equal((await plain.get(host, '/')).status, 200);
    await until('request size recorded', async () => samples(await scrape(plain.portico), 'nginx_ingress_controller_request_size_count', { host }).length > 0, 10_000);
  });

  test('request metrics per undefined host are present when flag is set', async () => {
    assert.equal((await flagged.get(wildcardHost, '/')).status, 404);
    await until('undefined host counted', async () => samples(await scrape(flagged.portico), 'nginx_ingress_controller_requests', { host: wildcardHost }).length > 0, 10_000);
    const [sample] = samples(await scrape(flagged.portico), 'nginx_ingress_controller_requests', { host: wildcardHost });
    assert.deepEqual([sample?.labels['status'], sample?.labels['namespace'], sample?.labels['ingress'], sample?.labels['service']], ['404', '', '', '']);
  });

  test('request metrics per undefined host are not present when flag is not set', async () => {
    const count = async (): Promise<number> => samples(await scrape(plain.portico), 'nginx_ingress_controller_requests', { host }).reduce((n, x) => n + x.value, 0);
    const before = await count();
    assert.equal((await plain.get(wildcardHost, '/')).status, 404);
    // A request for the defined host after it: once that one is counted, the 404's log phase has run too.
    assert.equal((await plain.get(host, '/')).status, 200);
    await until('the defined host counted', async () => (await count()) > before, 10_000);
    const counted = samples(await scrape(plain.portico), 'nginx_ingress_controller_requests');
    assert.deepEqual([...new Set(counted.map((x) => x.labels['host']))], [host]);
  });
});
