// ingress-nginx e2e tcpudp/tcp.go: --tcp-services-configmap exposes a Service on a TCP port of its own (here the echo
// backend, spoken to in HTTP through the stream proxy); pointing the port at another Service reloads nginx and the
// other backend answers. An ExternalName Service there is served at what its name resolves to (`localhost` here),
// at the targetPort of the Service port the entry names (docs/adr/0019).
import { after, before, describe, test } from 'node:test';
import { backendObjects, configMap } from '../../support/manifests.js';
import { freePort, get, until } from '../../support/portico.js';
import { scrape, total } from '../../support/prometheus.js';
import type { Backend } from '../../support/backends.js';
import { startEcho, startSuite, type Suite } from '../harness.js';

void describe('tcpudp/tcp.go', () => {
  let s: Suite;
  let first: Backend;
  let second: Backend;
  let port: number;
  const tcp = (data: Record<string, string>) => s.dir.write('tcp.json', [configMap('tcp-services', data)]);
  const through = async (): Promise<string> => {
    try {
      const r = await get(port, 'tcp', '/');
      return r.status === 200 ? String(r.headers['x-backend']) : String(r.status);
    } catch (err) {
      return String(err);
    }
  };
  before(async () => {
    first = await startEcho('first-service');
    second = await startEcho('second-service');
    port = await freePort();
    s = await startSuite({ args: ['--tcp-services-configmap', 'default/tcp-services'], objects: [...backendObjects('first-service', first.port), ...backendObjects('second-service', second.port)] });
  });
  after(async () => {
    await s.stop();
    await first.close();
    await second.close();
  });

  test('should expose a TCP service', async () => {
    await tcp({ [String(port)]: 'default/echo:80' });
    await until('echo answers on the TCP port', async () => (await through()) === 'echo', 20_000);
  });

  test('should expose an ExternalName TCP service', async () => {
    await s.put(
      'external.json',
      [
        {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name: 'dns-external-name-svc', namespace: 'default' },
          spec: { type: 'ExternalName', externalName: 'localhost', ports: [{ name: 'http', port: 5353, targetPort: s.echo.port }] },
        },
      ],
      () => Promise.resolve(true),
    );
    await tcp({ [String(port)]: 'default/dns-external-name-svc:5353' });
    await until('the ExternalName target answers on the TCP port', async () => (await through()) === 'echo', 20_000);
  });

  test('should reload after an update in the configuration', async () => {
    await tcp({ [String(port)]: 'default/first-service:80' });
    await until('first-service answers', async () => (await through()) === 'first-service', 20_000);
    const before = total(await scrape(s.portico), 'nginx_ingress_controller_success');
    await tcp({ [String(port)]: 'default/second-service:80' });
    await until('second-service answers', async () => (await through()) === 'second-service', 20_000);
    // the counter moves once the reload is applied, which ends after the new workers first answer (old ones retired)
    await until('a successful reload counted', async () => total(await scrape(s.portico), 'nginx_ingress_controller_success') > before, 10_000);
  });
});
