// deploy/'s helper scripts do what docs/install.md says: admission-cert.sh makes a certificate the webhook's Service
// name verifies against, and copy-ingress.jq makes a copy of an ingress-nginx Ingress that Portico's class serves.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { classSelector } from '../../src/model/classes.js';
import type { Ingress } from '../../src/model/input.js';
import { REPO } from '../support/portico.js';

const run = promisify(execFile);

void test('admission-cert.sh: a CA and a server certificate for portico-admission.portico.svc', async () => {
  const out = await mkdtemp(join(tmpdir(), 'portico-admission-'));
  try {
    await run('bash', [join(REPO, 'deploy/admission-cert.sh'), 'portico'], { env: { ...process.env, OUT: out }, timeout: 30_000 });
    const ca = new X509Certificate(await readFile(join(out, 'ca.crt')));
    const cert = new X509Certificate(await readFile(join(out, 'tls.crt')));
    assert.ok(cert.verify(ca.publicKey), 'signed by the CA');
    assert.equal(cert.checkHost('portico-admission.portico.svc'), 'portico-admission.portico.svc');
    assert.ok(cert.checkPrivateKey((await import('node:crypto')).createPrivateKey(await readFile(join(out, 'tls.key')))));
  } finally {
    await rm(out, { recursive: true, force: true });
  }
});

void test('the image installs every nginx and Lua package scripts/setup.sh installs for the tests', async () => {
  const setup = await readFile(join(REPO, 'scripts/setup.sh'), 'utf8');
  const wanted = (/^PACKAGES=\(([^)]*)\)/m.exec(setup)?.[1] ?? '').split(/\s+/).filter((p) => /^(nginx|libnginx-|lua-)/.test(p));
  const image = (await readFile(join(REPO, 'image/packages.txt'), 'utf8')).split('\n').filter((l) => l !== '' && !l.startsWith('#'));
  assert.ok(wanted.length >= 5);
  assert.deepEqual(
    wanted.filter((p) => !image.includes(p)),
    [],
    'missing from image/packages.txt',
  );
});

const jq = await run('jq', ['--version']).then(
  () => true,
  () => false,
);

void test("copy-ingress.jq: the copy is Portico's, named -portico, without server-set fields", { skip: jq ? false : 'jq is not installed' }, async () => {
  const docs = parseAllDocuments(await readFile(join(REPO, 'test/fixtures/migrate/cluster/ingresses.yaml'), 'utf8')).map((d) => d.toJS() as Ingress);
  const old = docs.find((d) => d.metadata?.name === 'old');
  assert.ok(old);
  const withServerFields = { ...old, metadata: { ...old.metadata, uid: 'u-1', resourceVersion: '42', generation: 3 }, status: { loadBalancer: { ingress: [{ ip: '192.0.2.1' }] } } };
  const copy = await new Promise<Ingress>((resolve, reject) => {
    const p = spawn('jq', ['-f', join(REPO, 'deploy/overlays/side-by-side/copy-ingress.jq')]);
    let text = '';
    p.stdout.on('data', (c: Buffer) => {
      text += c.toString();
    });
    p.on('exit', (code) => {
      if (code === 0) resolve(JSON.parse(text) as Ingress);
      else reject(new Error(`jq exited ${String(code)}`));
    });
    p.stdin.end(JSON.stringify(withServerFields));
  });
  assert.deepEqual(copy.metadata, {
    name: 'old-portico',
    namespace: 'legacy',
    labels: { 'portico.dev/copy-of': 'old' },
    annotations: Object.fromEntries(Object.entries(old.metadata?.annotations ?? {}).filter(([k]) => k !== 'kubernetes.io/ingress.class')),
  });
  assert.equal(copy.status, undefined);
  assert.deepEqual(copy.spec?.rules, old.spec?.rules);
  const portico = classSelector([{ apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata: { name: 'portico' }, spec: { controller: 'portico.dev/ingress-controller' } }], {
    controllerClass: 'portico.dev/ingress-controller',
    ingressClass: 'portico',
    watchIngressWithoutClass: false,
    defaultBackendService: undefined,
    loadBalance: 'round_robin',
  });
  assert.equal(portico(copy), true, "Portico's class serves the copy");
  assert.equal(portico(old), false, 'and not the original');
});
