// The shared host for tests (ADR 0017): namespace a serves /a on shared.test (plain HTTP) and secure.test (its own TLS),
// older; namespace b has an attacker backend, a certificate for both hosts and a client CA, to be used by newer objects.
import { gatewayClass } from './gateway.js';
import { makeCert, type Pem } from './certs.js';
import { serviceFor } from './manifests.js';
import { ingress } from './objects.js';
import { caSecret, tlsSecret } from './tls-manifests.js';
import type { Backend } from './backends.js';

export const SHARED_HOSTS = ['shared.test', 'secure.test'] as const;
const OLD = '2026-01-01T00:00:00Z';
export const NEW = '2026-02-01T00:00:00Z';

export interface SharedCerts {
  readonly a: Pem;
  readonly b: Pem;
  readonly ca: Pem;
}

/** a's certificate for secure.test; b's for both hosts (and *.test); b's client CA. */
export function sharedCerts(dir: string): SharedCerts {
  return { a: makeCert(dir, 'secure.test', { sans: ['secure.test'] }), b: makeCert(dir, 'b', { sans: ['shared.test', 'secure.test', '*.test'] }), ca: makeCert(dir, 'b-ca', { isCa: true }) };
}

/** The objects before b: a's Services, Ingress and Secret, b's Service and Secrets, Portico's GatewayClass. */
export function victimObjects(victim: Backend, attacker: Backend, certs: SharedCerts): unknown[] {
  const site = ingress('site', {
    namespace: 'a',
    className: 'portico',
    created: OLD,
    rules: SHARED_HOSTS.map((host) => ({ host, paths: [{ path: '/a', type: 'Prefix' as const, service: 'victim' }] })),
  });
  return [
    ...serviceFor('victim', [victim], { namespace: 'a' }),
    ...serviceFor('attacker', [attacker], { namespace: 'b' }),
    tlsSecret('cert', certs.a, 'a'),
    tlsSecret('cert', certs.b, 'b'),
    caSecret('ca', certs.ca.cert, 'b'),
    gatewayClass('portico'),
    { ...site, spec: { ...site.spec, tls: [{ hosts: ['secure.test'], secretName: 'cert' }] } },
  ];
}
