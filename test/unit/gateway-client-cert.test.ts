// Gateway client certificates, unit level (docs/adr/0036): which validation a listener gets (perPort over default,
// HTTPS only), how its references resolve into ResolvedRefs and Accepted, and the server lines nginx is given.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { frontendOutcomes, insecureFrontendCondition, judgeFrontend } from '../../src/model/gateway/client-cert.js';
import type { Gateway, Listener } from '../../src/model/gateway/api.js';
import type { ConfigMap } from '../../src/model/input.js';
import { gatewayClientCertLines } from '../../src/render/client-cert.js';
import { makeCert } from '../support/certs.js';

const NS = 'infra';
const REF = { kind: 'Gateway', namespace: NS, name: 'gw' };
const https = (port: number): Listener => ({ name: `l${port}`, port, protocol: 'HTTPS' });

function gateway(tls: NonNullable<Gateway['spec']>['tls']): Gateway {
  return { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'Gateway', metadata: { name: 'gw', namespace: NS }, spec: { listeners: [], tls } };
}

test('perPort overrides default, HTTP listeners have none; one bad reference beside a good one: ResolvedRefs False, still accepted', () => {
  const dir = mkdtempSync(join(tmpdir(), 'portico-unit-cc-'));
  try {
    const ca = makeCert(dir, 'ca', { isCa: true });
    const cm = (name: string, data: Record<string, string>): ConfigMap => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS }, data });
    const snap = { secrets: [], configMaps: [cm('good', { 'ca.crt': ca.cert }), cm('empty', { 'ca.crt': '' })] };
    const g = gateway({
      frontend: {
        default: {
          validation: {
            caCertificateRefs: [
              { kind: 'ConfigMap', name: 'good' },
              { kind: 'ConfigMap', name: 'empty' },
            ],
          },
        },
        perPort: [{ port: 8443 }, { port: 9443, tls: { validation: { mode: 'AllowInsecureFallback', caCertificateRefs: [{ kind: 'ConfigMap', name: 'good' }] } } }],
      },
    });
    const d = judgeFrontend(g, REF, https(443), snap);
    assert.equal(d?.resolvedRefs[0], false);
    assert.equal(d.resolvedRefs[1], 'InvalidCACertificateRef');
    assert.equal(d.refused, undefined, 'a usable CA is left: the listener is served');
    assert.equal(d.ca?.mode, 'AllowValidOnly');
    assert.equal(judgeFrontend(g, REF, https(8443), snap), undefined, 'a perPort entry without validation turns it off on its port');
    assert.equal(judgeFrontend(g, REF, https(9443), snap)?.ca?.mode, 'AllowInsecureFallback');
    assert.equal(judgeFrontend(g, REF, { name: 'http', port: 443, protocol: 'HTTP' }, snap), undefined);
    assert.deepEqual(insecureFrontendCondition(g)?.slice(0, 2), [true, 'ConfigurationChanged']);
    // a certificateRef failure is reported first; a refusal only turns an accepted listener down
    const certs = [false, 'InvalidCertificateRef', 'x'] as const;
    const accepted = [true, 'Accepted', 'served'] as const;
    assert.deepEqual(frontendOutcomes(g, REF, https(443), snap, { accepted, certs }).resolvedRefs, certs);
    const none = gateway({ frontend: { default: { validation: { caCertificateRefs: [{ kind: 'ConfigMap', name: 'empty' }] } } } });
    assert.deepEqual(frontendOutcomes(none, REF, https(443), snap, { accepted, certs: [true, 'ResolvedRefs', ''] }).accepted.slice(0, 2), [false, 'NoValidCACertificate']);
    assert.equal(insecureFrontendCondition(none), undefined);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('server lines: AllowValidOnly closes refused clients and answers 421 off its SNI name; Refused closes HTTPS; fallback adds nothing', () => {
  const base = { ingress: REF, secret: REF, caPem: 'x', crlPem: undefined, caDigest: 'd', crlDigest: undefined, verify: 'on' as const, depth: 2, errorPage: undefined, passCertificate: false };
  const strict = gatewayClientCertLines({ ...base, gatewayMode: 'AllowValidOnly' });
  assert.ok(strict.some((l) => l.includes('error_page 495 496 = @portico_client_certificate_refused')));
  assert.ok(strict.some((l) => l.includes('return 444')));
  assert.ok(strict.some((l) => l.includes('return 421')));
  assert.deepEqual(gatewayClientCertLines({ ...base, gatewayMode: 'Refused' }), ['        if ($https) { return 444; }']);
  assert.deepEqual(gatewayClientCertLines({ ...base, gatewayMode: 'AllowInsecureFallback' }), []);
  assert.deepEqual(gatewayClientCertLines(base), [], 'an Ingress auth-tls server is left as it was');
});
