// End to end, real nginx: client-certificate authentication from auth-tls-* annotations; a CA change is a reload.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBackend, type Backend } from '../support/backends.js';
import { httpsGet, makeCert, type Pem } from '../support/certs.js';
import { get, startPortico, syncCount, until, type Running } from '../support/portico.js';
import { caSecret, hostIngress, tlsSecret, webObjects, writeManifests } from '../support/tls-manifests.js';

const A = 'nginx.ingress.kubernetes.io';

void describe('client-certificate authentication', () => {
  let fixtures: string;
  let manifests: string;
  let backend: Backend;
  let portico: Running;
  let ca1: Pem;
  let ca2: Pem;
  let client1: Pem;
  let client2: Pem;
  let client3: Pem;
  let objects: (trusted: Pem) => unknown[];

  before(async () => {
    fixtures = mkdtempSync(join(tmpdir(), 'portico-mtls-fixtures-'));
    manifests = mkdtempSync(join(tmpdir(), 'portico-mtls-manifests-'));
    ca1 = makeCert(fixtures, 'Portico Test CA 1', { isCa: true });
    ca2 = makeCert(fixtures, 'Portico Test CA 2', { isCa: true });
    client1 = makeCert(fixtures, 'client-one', { ca: ca1 });
    client2 = makeCert(fixtures, 'client-two', { ca: ca2 });
    client3 = makeCert(fixtures, 'client-three', { ca: ca1 });
    const server = makeCert(fixtures, 'mtls', { sans: ['m.test', 'o.test', 'bad.test', 'cn.test', 'cnbad.test', 'v.test'] });
    backend = await startBackend('web');
    objects = (trusted) => [
      ...webObjects(backend.port),
      tlsSecret('server-tls', server),
      caSecret('client-ca', trusted.cert),
      hostIngress('m', 'm.test', {
        tls: [{ hosts: ['m.test'], secretName: 'server-tls' }],
        annotations: {
          [`${A}/auth-tls-secret`]: 'default/client-ca',
          [`${A}/auth-tls-verify-client`]: 'on',
          [`${A}/auth-tls-verify-depth`]: '1',
          [`${A}/auth-tls-pass-certificate-to-upstream`]: 'true',
        },
      }),
      hostIngress('o', 'o.test', { tls: [{ hosts: ['o.test'], secretName: 'server-tls' }], annotations: { [`${A}/auth-tls-secret`]: 'client-ca', [`${A}/auth-tls-verify-client`]: 'optional' } }),
      hostIngress('cn', 'cn.test', {
        tls: [{ hosts: ['cn.test'], secretName: 'server-tls' }],
        annotations: { [`${A}/auth-tls-secret`]: 'client-ca', [`${A}/auth-tls-verify-client`]: 'optional', [`${A}/auth-tls-match-cn`]: 'CN=(client-one|client-four)$' },
      }),
      hostIngress('cnbad', 'cnbad.test', {
        tls: [{ hosts: ['cnbad.test'], secretName: 'server-tls' }],
        annotations: { [`${A}/auth-tls-secret`]: 'client-ca', [`${A}/auth-tls-match-cn`]: 'CN=(a+)+$' },
      }),
      hostIngress('bad', 'bad.test', { tls: [{ hosts: ['bad.test'], secretName: 'server-tls' }], annotations: { [`${A}/auth-tls-secret`]: 'no-such-ca' } }),
      // A location with proxy_set_header lines of its own (upstream-vhost) on a client-auth server, and a plain host.
      hostIngress('v', 'v.test', {
        tls: [{ hosts: ['v.test'], secretName: 'server-tls' }],
        annotations: { [`${A}/auth-tls-secret`]: 'client-ca', [`${A}/auth-tls-verify-client`]: 'optional', [`${A}/upstream-vhost`]: 'vhost.internal' },
      }),
      hostIngress('plain', 'plain.test'),
    ];
    writeManifests(manifests, objects(ca1));
    portico = await startPortico(['--manifests', manifests]);
  });

  after(async () => {
    await portico?.stop();
    await backend?.close();
    rmSync(fixtures, { recursive: true, force: true });
    rmSync(manifests, { recursive: true, force: true });
  });

  const echoed = (body: string): Record<string, string> => (JSON.parse(body) as { headers: Record<string, string> }).headers;

  void it('accepts a client signed by the CA and passes its certificate upstream', async () => {
    const r = await httpsGet(portico.https, 'm.test', '/', client1);
    assert.equal(r.status, 200, r.body);
    const h = echoed(r.body);
    assert.equal(h['ssl-client-verify'], 'SUCCESS');
    assert.equal(h['ssl-client-subject-dn'], 'CN=client-one');
    assert.equal(h['ssl-client-issuer-dn'], 'CN=Portico Test CA 1');
    assert.ok(decodeURIComponent(h['ssl-client-cert'] ?? '').includes(client1.cert.split('\n')[1]!), 'escaped client certificate passed');
  });

  void it('refuses a client signed by another CA, and one without a certificate', async () => {
    assert.equal((await httpsGet(portico.https, 'm.test', '/', client2)).status, 400);
    assert.equal((await httpsGet(portico.https, 'm.test', '/')).status, 400);
  });

  void it('optional lets a client without a certificate through, but not one with a bad certificate', async () => {
    const r = await httpsGet(portico.https, 'o.test', '/');
    assert.equal(r.status, 200);
    assert.equal(echoed(r.body)['ssl-client-verify'], 'NONE');
    assert.equal(echoed(r.body)['ssl-client-cert'], undefined, 'pass-certificate-to-upstream defaults to false');
    assert.equal((await httpsGet(portico.https, 'o.test', '/', client1)).status, 200);
    assert.equal((await httpsGet(portico.https, 'o.test', '/', client2)).status, 400);
  });

  void it('sends the ssl-client-* headers from a location that sets headers of its own (upstream-vhost)', async () => {
    const h = echoed((await httpsGet(portico.https, 'v.test', '/', client1)).body);
    assert.equal(h['host'], 'vhost.internal');
    assert.equal(h['ssl-client-verify'], 'SUCCESS');
    assert.equal(h['ssl-client-subject-dn'], 'CN=client-one');
    assert.equal(h['ssl-client-cert'], undefined, 'pass-certificate-to-upstream is off here');
  });

  void it('a server without client auth sends no ssl-client-* headers, and drops ones a client forged', async () => {
    const forged = { 'ssl-client-verify': 'SUCCESS', 'ssl-client-subject-dn': 'CN=admin', 'ssl-client-issuer-dn': 'CN=Portico Test CA 1', 'ssl-client-cert': 'x' };
    const r = await get(portico.http, 'plain.test', '/', { headers: forged });
    assert.equal(r.status, 200, r.body);
    const h = echoed(r.body);
    assert.deepEqual(
      Object.keys(h).filter((k) => k.startsWith('ssl-client')),
      [],
    );
    assert.equal(h['x-forwarded-host'], 'plain.test', 'the default headers are still sent');
  });

  void it('auth-tls-match-cn: a subject that does not match is 403, as is no certificate; a matching one passes', async () => {
    assert.equal((await httpsGet(portico.https, 'cn.test', '/', client1)).status, 200);
    const other = await httpsGet(portico.https, 'cn.test', '/', client3);
    assert.equal(other.status, 403);
    assert.match(other.body, /client certificate unauthorized/);
    assert.equal((await httpsGet(portico.https, 'cn.test', '/')).status, 403, 'optional without a certificate has no CN to match');
  });

  void it('auth-tls-match-cn that could backtrack exponentially is refused: the Ingress is not served, with a warning', async () => {
    assert.notEqual((await httpsGet(portico.https, 'cnbad.test', '/', client1)).status, 200);
    assert.ok(portico.output.some((l) => l.includes('"level":40') && l.includes('Ingress default/cnbad') && l.includes('auth-tls-match-cn')));
  });

  void it('answers 503 for an Ingress whose CA Secret is missing, with a warning', async () => {
    assert.equal((await httpsGet(portico.https, 'bad.test', '/', client1)).status, 503);
    assert.ok(portico.output.some((l) => l.includes('"level":40') && l.includes('Ingress default/bad') && l.includes('Secret default/no-such-ca not found')));
  });

  void it('applies a CA change with a reload, counted, and keeps CA files 0600 in the work dir', async () => {
    const reloads = syncCount(portico.output, 'reload');
    writeManifests(manifests, objects(ca2));
    // Old workers finish their connections for a few milliseconds after a reload: wait for both answers.
    await until('the new CA is used', async () => (await httpsGet(portico.https, 'm.test', '/', client2)).status === 200 && (await httpsGet(portico.https, 'm.test', '/', client1)).status === 400);
    await until('the reload is logged', () => syncCount(portico.output, 'reload') === reloads + 1);
    assert.ok(portico.output.some((l) => l.includes('"plan":"reload"') && l.includes('"clientCaReloads":1')));
    const files = readdirSync(join(portico.workDir, 'ssl')).filter((f) => f.startsWith('ca-'));
    assert.equal(files.length, 1, 'the old CA file is removed after the reload');
    assert.equal(statSync(join(portico.workDir, 'ssl', files[0]!)).mode & 0o777, 0o600);
  });
});
