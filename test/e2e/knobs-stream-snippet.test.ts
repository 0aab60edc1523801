// stream-snippet (ConfigMap and annotation) rendered in stream{} through real nginx: in safe mode the ConfigMap's
// access list closes the TCP services to the client, a server block is refused naming the directive and line, and an
// Ingress's stream-snippet is refused (stream{} has no place of its own); with --snippet-mode=any both are rendered.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startBackend, type Backend } from '../support/backends.js';
import { ingress, slice } from '../support/objects.js';
import { backendObjects, configMap, manifestFolder, type ManifestDir } from '../support/manifests.js';
import { freePort, get, startPortico, until, type Running } from '../support/portico.js';
import { tcpBackend, tcpWho, type StreamBackend } from '../support/stream-backends.js';

const P = 'nginx.ingress.kubernetes.io';

function tcpService(name: string, backend: StreamBackend): unknown[] {
  const s = slice(name, backend.port, ['127.0.0.1'], { portName: 'tcp' });
  return [
    { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default' }, spec: { ports: [{ name: 'tcp', port: 5432, protocol: 'TCP' }] } },
    { ...s, ports: [{ name: 'tcp', port: backend.port, protocol: 'TCP' }] },
  ];
}

void describe('stream-snippet in stream{} (real nginx)', () => {
  let db: StreamBackend;
  let web: Backend;
  let m: ManifestDir;
  let p: Running | undefined;
  let dbPort = 0;
  const site = (annotations: Record<string, string>): unknown[] => [ingress('web', { className: 'portico', host: 'web.test', annotations, paths: [{ path: '/', type: 'Prefix', service: 'web' }] })];

  before(async () => {
    db = await tcpBackend('db');
    web = await startBackend('web');
    dbPort = await freePort();
    m = await manifestFolder();
    await m.write('svc.json', [...tcpService('db', db), ...backendObjects('web', web.port)]);
    await m.write('ing.json', site({}));
    await m.write('cm.json', [configMap('tcp', { [String(dbPort)]: 'default/db:5432' }, 'ingress'), configMap('portico', {}, 'ingress')]);
  });

  after(async () => {
    await p?.stop();
    await db.close();
    await web.close();
    await m.remove();
  });

  const cms = (stream?: string): unknown[] => [
    configMap('tcp', { [String(dbPort)]: 'default/db:5432' }, 'ingress'),
    configMap('portico', stream === undefined ? { 'allow-snippet-annotations': 'true' } : { 'allow-snippet-annotations': 'true', 'stream-snippet': stream }, 'ingress'),
  ];

  void it("safe mode: the ConfigMap's access list closes the TCP services to this client; removed, they answer again", async () => {
    p = await startPortico(['--manifests', m.dir, '--tcp-services-configmap', 'ingress/tcp', '--configmap', 'ingress/portico']);
    await until('db answers', async () => (await tcpWho(dbPort).catch(() => '')) === 'db', 20_000, 100);
    await m.write('cm.json', cms('proxy_timeout 30s;\nallow 10.0.0.0/8;\ndeny all;'));
    await until('the snippet denies 127.0.0.1', async () => (await tcpWho(dbPort).catch(() => 'refused')) === '', 10_000, 100);
    assert.equal((await get(p.http, 'web.test', '/')).status, 200);
    await m.write('cm.json', cms());
    await until('db answers again', async () => (await tcpWho(dbPort).catch(() => '')) === 'db', 10_000, 100);
  });

  void it("safe mode: an Ingress's stream-snippet is refused (it would act on every TCP service); the service keeps answering", async () => {
    assert.ok(p);
    const running = p;
    await m.write('ing.json', site({ [`${P}/stream-snippet`]: 'deny all;' }));
    await until('the Problem', () => running.output.some((l) => l.includes(`${P}/stream-snippet`) && l.includes('acts on every TCP/UDP service')), 10_000, 100);
    assert.equal(await tcpWho(dbPort), 'db');
    assert.equal((await get(running.http, 'web.test', '/')).status, 200, 'the Ingress keeps its last valid form');
    await m.write('ing.json', site({}));
  });

  void it('safe mode: a ConfigMap stream-snippet with a server block is refused naming the directive and line; TCP still answers', async () => {
    assert.ok(p);
    const running = p;
    await m.write('cm.json', cms('proxy_timeout 30s;\nserver { listen 1; proxy_pass 127.0.0.1:22; }'));
    await until('the Warning', () => running.output.some((l) => l.includes('data.stream-snippet') && l.includes('directive server at line 2')), 10_000, 100);
    assert.equal(await tcpWho(dbPort), 'db');
  });

  void it('--snippet-mode=any: server blocks of the ConfigMap and of an Ingress listen on their own ports and proxy there, as ingress-nginx', async () => {
    await p?.stop();
    p = undefined;
    const [fromCm, fromIng] = [await freePort(), await freePort()];
    const block = (port: number): string => `server {\n  listen 127.0.0.1:${port};\n  proxy_pass 127.0.0.1:${db.port};\n}`;
    await m.write('cm.json', cms(block(fromCm)));
    await m.write('ing.json', site({ [`${P}/stream-snippet`]: block(fromIng) }));
    p = await startPortico([
      '--manifests',
      m.dir,
      '--tcp-services-configmap',
      'ingress/tcp',
      '--configmap',
      'ingress/portico',
      '--snippet-mode',
      'any',
      '--allow-snippet-annotations',
      '--annotations-risk-level',
      'Critical',
    ]);
    await until("the snippets' ports answer", async () => (await tcpWho(fromCm).catch(() => '')) === 'db' && (await tcpWho(fromIng).catch(() => '')) === 'db', 20_000, 100);
    assert.equal(await tcpWho(dbPort), 'db');
  });
});
