// Migrate-check's verdicts agree with what the controller serves. One folder as an operator
// has it (ingress-nginx's Deployment, Ingresses of class nginx, a tcp-services ConfigMap) is judged by the real
// command, then served by a real Portico with the flags the report says it evaluated with (real nginx). A file that
// does not parse, or a TCP entry that cannot be served, is a finding and exit 1, never a silent skip.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBackend, type Backend } from '../support/backends.js';
import { httpsGet, makeCert, presented, type Pem } from '../support/certs.js';
import { ingress, ingressClass, slice } from '../support/objects.js';
import { backendObjects, configMap, manifestFolder, type ManifestDir } from '../support/manifests.js';
import { freePort, get, startPortico, until, type Running } from '../support/portico.js';
import { tcpBackend, tcpWho, type StreamBackend } from '../support/stream-backends.js';
import { tlsSecret } from '../support/tls-manifests.js';
import { portico } from './run.js';

const P = 'nginx.ingress.kubernetes.io';

interface Report {
  ok: boolean;
  evaluatedWith: string[];
  ingresses: { namespace: string; name: string; verdict: string; reasons: string[]; annotations: { key: string; verdict: string; detail: string }[] }[];
  streamServices: { ref: string; protocol: string; keys: { key: string; verdict: string; detail: string }[] }[];
  controllers: { flags: { key: string; value: string; verdict: string }[] }[];
  unreadable: { file: string; errors: string[] }[];
}

/** ingress-nginx's controller as its chart installs it, with the flags of the issue. */
const deployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'ingress-nginx-controller', namespace: 'ingress-nginx' },
  spec: {
    selector: { matchLabels: { app: 'ingress-nginx' } },
    template: {
      metadata: { labels: { app: 'ingress-nginx' } },
      spec: {
        containers: [
          {
            name: 'controller',
            image: 'registry.k8s.io/ingress-nginx/controller:v1.13.3',
            args: [
              '/nginx-ingress-controller',
              '--controller-class=k8s.io/ingress-nginx',
              '--ingress-class=nginx',
              '--tcp-services-configmap=$(POD_NAMESPACE)/tcp-services',
              '--enable-ssl-chain-completion=false',
            ],
            env: [{ name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } }],
          },
        ],
      },
    },
  },
};

describe('migrate-check judges as the controller serves', () => {
  let m: ManifestDir;
  let certDir = '';
  let pem: Pem;
  let backends: Backend[] = [];
  let db: StreamBackend;
  let tcpPort = 0;
  let report: Report;
  let code = -1;
  let p: Running | undefined;
  const on = (name: string, host: string, path: string, annotations: Record<string, string> = {}, created = '2024-01-01T00:00:00Z') =>
    ingress(name, { namespace: 'shop', className: 'nginx', host, created, annotations, paths: [{ path, type: path.includes('(') ? 'ImplementationSpecific' : 'Prefix', service: name }] });

  before(async () => {
    certDir = mkdtempSync(join(tmpdir(), 'portico-verdicts-'));
    pem = makeCert(certDir, 'secure.test', { sans: ['secure.test'] });
    backends = await Promise.all(['older', 'newer', 'allow', 'app', 'oauth2', 'api', 'status'].map((id) => startBackend(id)));
    db = await tcpBackend('db');
    tcpPort = await freePort();
    m = await manifestFolder();
    const shared = (name: string, path: string, created: string) => ({
      ...on(name, 'secure.test', path, {}, created),
      spec: { ...on(name, 'secure.test', path).spec, tls: [{ hosts: ['secure.test'], secretName: 'secure-tls' }] },
    });
    await m.write('cluster.json', [ingressClass('nginx', 'k8s.io/ingress-nginx'), deployment, configMap('tcp-services', { [String(tcpPort)]: 'shop/db:5432' }, 'ingress-nginx')]);
    await m.write('backends.json', [
      ...backends.flatMap((b) => backendObjects(b.id, b.port, 'shop')),
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'db', namespace: 'shop' }, spec: { ports: [{ name: 'tcp', port: 5432, protocol: 'TCP' }] } },
      slice('db', db.port, ['127.0.0.1'], { namespace: 'shop', name: 'db-0', portName: 'tcp' }),
      { ...tlsSecret('secure-tls', pem, 'shop') },
    ]);
    await m.write('ingresses.json', [
      // (a) two Ingresses of one host sharing one TLS Secret
      shared('older', '/a', '2024-01-01T00:00:00Z'),
      shared('newer', '/b', '2024-01-02T00:00:00Z'),
      // (b) the old allow-list name alone
      on('allow', 'allow.test', '/', { [`${P}/whitelist-source-range`]: '127.0.0.1/32' }),
      // (c) oauth2-proxy's form, as docs/migration.md says it works
      on('app', 'sso.test', '/', { [`${P}/auth-url`]: 'https://$host/oauth2/auth', [`${P}/auth-signin`]: 'https://$host/oauth2/start?rd=$escaped_request_uri' }),
      on('oauth2', 'sso.test', '/oauth2'),
      // use-regex on a host where another Ingress has a Prefix path: a deliberate difference
      on('api', 'api.test', '/v1(/|$)(.*)', { [`${P}/use-regex`]: 'true', [`${P}/rewrite-target`]: '/$2' }),
      on('status', 'api.test', '/status'),
    ]);
    const r = await portico(['migrate-check', '--manifests', m.dir, '--json']);
    code = r.code;
    report = JSON.parse(r.stdout) as Report;
    p = await startPortico(['--manifests', m.dir, ...report.evaluatedWith]);
    await until('the folder is served', async () => (await get(p!.http, 'allow.test', '/')).headers['x-backend'] === 'allow', 15_000);
  });

  after(async () => {
    await p?.stop();
    await Promise.all([...backends.map((b) => b.close()), db?.close()]);
    await m?.remove();
    rmSync(certDir, { recursive: true, force: true });
  });

  const verdict = (name: string): string => report.ingresses.find((i) => i.name === name)?.verdict ?? 'not reported';
  const annotation = (name: string, key: string) => report.ingresses.find((i) => i.name === name)?.annotations.find((a) => a.key === `${P}/${key}`);

  test('everything maps, exit 0, evaluated with the tcp-services flag', () => {
    assert.equal(code, 0, JSON.stringify(report, null, 2));
    assert.ok(report.evaluatedWith.includes('--tcp-services-configmap=ingress-nginx/tcp-services'), report.evaluatedWith.join(' '));
  });

  test('(a) two Ingresses sharing one TLS Secret: both served, the certificate serves both paths, the dashboard skips none', async () => {
    assert.equal(verdict('older'), 'served');
    assert.equal(verdict('newer'), 'served', JSON.stringify(report.ingresses.find((i) => i.name === 'newer')));
    assert.equal((await presented(p!.https, 'secure.test')).fingerprint, pem.fingerprint);
    assert.equal((await httpsGet(p!.https, 'secure.test', '/a')).headers['x-backend'], 'older');
    assert.equal((await httpsGet(p!.https, 'secure.test', '/b')).headers['x-backend'], 'newer');
    const state = JSON.parse((await get(p!.healthz, 'localhost', '/dashboard/state.json')).body) as { skipped: unknown[]; certificates: { host: string; ingress: string; secret: string }[] };
    assert.deepEqual(state.skipped, []);
    assert.deepEqual(
      state.certificates.filter((c) => c.host === 'secure.test').map((c) => [c.ingress, c.secret]),
      [['shop/older', 'shop/secure-tls']],
    );
  });

  test('(b) whitelist-source-range alone is the same, and lets 127.0.0.1 through', async () => {
    assert.equal(annotation('allow', 'whitelist-source-range')?.verdict, 'same');
    assert.equal(verdict('allow'), 'served');
    assert.equal((await get(p!.http, 'allow.test', '/')).headers['x-backend'], 'allow');
  });

  test("(c) auth-url in oauth2-proxy's form is the same, and the auth request goes through Portico to the auth path", async () => {
    assert.equal(annotation('app', 'auth-url')?.verdict, 'same');
    assert.equal(verdict('app'), 'served');
    const seen = backends.find((b) => b.id === 'oauth2')?.seen.length ?? 0;
    assert.equal((await get(p!.http, 'sso.test', '/page')).headers['x-backend'], 'app');
    assert.ok((backends.find((b) => b.id === 'oauth2')?.seen.length ?? 0) > seen, 'the auth request reached the oauth2 path');
  });

  test('(d) --enable-ssl-chain-completion=false asks for what Portico does: same', () => {
    const flag = report.controllers[0]?.flags.find((f) => f.key === '--enable-ssl-chain-completion');
    assert.deepEqual([flag?.value, flag?.verdict], ['false', 'same']);
  });

  test('(e) the tcp-services entries are judged, and the port the report calls same serves', async () => {
    assert.deepEqual(
      report.streamServices.map((s) => [s.protocol, s.ref, s.keys.map((k) => [k.key, k.verdict])]),
      [['TCP', 'ingress-nginx/tcp-services', [[String(tcpPort), 'same']]]],
    );
    assert.equal(await tcpWho(tcpPort), 'db');
  });

  test('use-regex on a shared host is reported different, and /STATUS is not routed as /status', async () => {
    const a = annotation('api', 'use-regex');
    assert.equal(a?.verdict, 'different');
    assert.match(a?.detail ?? '', /case-insensitive/);
    assert.equal((await get(p!.http, 'api.test', '/v1/x')).headers['x-backend'], 'api');
    assert.equal((await get(p!.http, 'api.test', '/status')).headers['x-backend'], 'status');
    assert.equal((await get(p!.http, 'api.test', '/STATUS')).status, 404, 'Prefix /status stays case-sensitive in Portico');
  });

  test('a TCP entry that cannot be served is refused with why, and exit 1', async () => {
    await writeFile(
      join(m.dir, 'tcp-bad.yaml'),
      `apiVersion: v1\nkind: ConfigMap\nmetadata: { name: tcp-services, namespace: ingress-nginx }\ndata: { "${tcpPort}": shop/db:5432, "9": shop/missing:5432 }\n`,
    );
    try {
      const r = await portico(['migrate-check', '--manifests', m.dir, '--json']);
      assert.equal(r.code, 1);
      const keys = (JSON.parse(r.stdout) as Report).streamServices[0]?.keys ?? [];
      assert.deepEqual(
        keys.map((k) => [k.key, k.verdict, k.detail]),
        [
          [String(tcpPort), 'same', ''],
          ['9', 'refused', 'TCP port "9" skipped: Service shop/missing not found'],
        ],
      );
    } finally {
      await rm(join(m.dir, 'tcp-bad.yaml'), { force: true });
    }
  });

  test('a file that does not parse is a finding in the table and the JSON, and exit 1', async () => {
    const broken = 'apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: lost\n  namespace: shop\n spec: {\n';
    await writeFile(join(m.dir, 'broken.yaml'), broken);
    try {
      const json = await portico(['migrate-check', '--manifests', m.dir, '--json']);
      assert.equal(json.code, 1);
      const r = JSON.parse(json.stdout) as Report;
      assert.equal(r.ok, false);
      assert.deepEqual(
        r.unreadable.map((u) => u.file),
        ['broken.yaml'],
      );
      assert.match(r.unreadable[0]?.errors[0] ?? '', /^broken\.yaml:\d+:\d+: /);
      const text = await portico(['migrate-check', '--manifests', m.dir]);
      assert.equal(text.code, 1);
      assert.equal(text.stderr, '', 'the finding is in the report, not a log line');
      assert.match(text.stdout, /^UNREADABLE broken\.yaml: its objects are missing from this report$/m);
      assert.match(text.stdout, /^summary: unreadable files: 1; /m);
      assert.doesNotMatch(text.stdout, /^everything maps/m);
      assert.match(text.stdout, /^ {2}broken\.yaml:6:1: BAD_INDENT: All mapping items must start at the same column$/m);
    } finally {
      await rm(join(m.dir, 'broken.yaml'), { force: true });
    }
  });
});
