// ingress-nginx e2e annotations/serviceupstream.go: service-upstream (the annotation, or the ConfigMap key as its
// default) sends requests to the Service's cluster IP and port instead of its pod endpoints. Here the Service's
// cluster IP is another loopback address with a backend of its own listening at the Service port, and its
// EndpointSlice names the echo backend: which one answers shows which target nginx used. One Service per Ingress:
// service-upstream belongs to the upstream (a Service port), which Ingresses of the same Service share.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Service } from '../../../src/model/input.js';
import { slice } from '../../support/objects.js';
import { ann, ing, startSuite, type Suite } from '../harness.js';

/** Any 127.0.0.0/8 address is loopback on Linux: one other than 127.0.0.1 stands for the cluster IP. */
const CLUSTER_IP = '127.0.0.19';

void describe('annotations/serviceupstream.go', () => {
  let s: Suite;
  let kubeProxy: Server;
  let port: number;
  /** 'cluster-ip' or 'echo' for a 200 from that backend, else the status. */
  const answer = async (host: string): Promise<string> => {
    const r = await s.get(host, '/');
    return r.status === 200 ? String(r.headers['x-backend']) : String(r.status);
  };
  /** An Ingress `name` for host `name`.serviceupstream to its own Service `name`, once `want` answers it. */
  const put = (name: string, annotations: Record<string, string>, want: string) =>
    s.put(
      `${name}.json`,
      [ing(name, `${name}.serviceupstream`, { paths: [{ path: '/', type: 'Prefix', service: name, port }], annotations })],
      async () => (await answer(`${name}.serviceupstream`)) === want,
    );

  before(async () => {
    kubeProxy = createServer((_req, res) => {
      res.writeHead(200, { 'x-backend': 'cluster-ip' });
      res.end('cluster-ip');
    });
    await new Promise<void>((resolve) => kubeProxy.listen(0, CLUSTER_IP, resolve));
    port = (kubeProxy.address() as AddressInfo).port;
    s = await startSuite();
    // Each Service answers at CLUSTER_IP:port; its pod is the echo backend.
    const service = (name: string): Service => ({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, namespace: 'default' },
      spec: { clusterIP: CLUSTER_IP, ports: [{ name: 'http', port, targetPort: s.echo.port }] },
    });
    await s.dir.write(
      'services.json',
      ['annotated', 'plain', 'optout'].flatMap((name) => [service(name), slice(name, s.echo.port, ['127.0.0.1'])]),
    );
  });
  after(async () => {
    await s.stop();
    kubeProxy.closeAllConnections();
    await new Promise<void>((resolve) =>
      kubeProxy.close(() => {
        resolve();
      }),
    );
  });

  void describe('when using the default value (false) and enabling in the annotations', () => {
    test('should use the Service Cluster IP and Port ', async () => {
      await put('plain', {}, 'echo');
      await put('annotated', ann({ 'service-upstream': 'true' }), 'cluster-ip');
      assert.equal(await answer('annotated.serviceupstream'), 'cluster-ip');
      // Without the annotation (and the ConfigMap's default, false): the pods.
      assert.equal(await answer('plain.serviceupstream'), 'echo');
    });
  });

  void describe('when enabling in the configmap', () => {
    test('should use the Service Cluster IP and Port ', async () => {
      // The Ingress without the annotation now takes the ConfigMap's value.
      await s.config({ 'service-upstream': 'true' }, async () => (await answer('plain.serviceupstream')) === 'cluster-ip');
      assert.equal(await answer('plain.serviceupstream'), 'cluster-ip');
    });
  });

  void describe('when enabling in the configmap and disabling in the annotations', () => {
    test('should not use the Service Cluster IP and Port', async () => {
      await put('optout', ann({ 'service-upstream': 'false' }), 'echo');
      assert.equal(await answer('optout.serviceupstream'), 'echo');
      // The ConfigMap still asks for it: an Ingress without the annotation keeps the cluster IP.
      assert.equal(await answer('plain.serviceupstream'), 'cluster-ip');
    });
  });
});
