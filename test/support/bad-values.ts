// Values one tenant can write that nginx or Lua refuse, as objects for fail-closed tests.
import type { Pem } from './certs.js';
import { ingress } from './objects.js';
import { tlsSecret } from './tls-manifests.js';

export interface BadCase {
  readonly name: string;
  readonly annotations?: Record<string, string>;
  /** The bad Ingress's path (default /evil). */
  readonly path?: string;
  /** The bad Ingress is a canary of the shared host's owner (canary annotations are set by the case). */
  readonly canary?: boolean;
  /**
   * The bad Ingress's spec.tls names a Secret whose tls.crt ends with a malformed CERTIFICATE block. Its rule is on
   * a host of its own (evil-tls.test): a TLS entry on a shared host turns on the HTTPS redirect of the whole host,
   * as in ingress-nginx, which is not what this case is about.
   */
  readonly brokenCert?: boolean;
  /** Valid after all (nginx takes it): the Ingress must be served, with no warning. */
  readonly accepted?: boolean;
}

const A = (k: string): string => `nginx.ingress.kubernetes.io/${k}`;

/** Every value the issue names, and their neighbours. */
export const BAD_VALUES: readonly BadCase[] = [
  { name: 'limit-connections 70000', annotations: { [A('limit-connections')]: '70000' } },
  { name: 'custom-http-errors 499', annotations: { [A('custom-http-errors')]: '499' } },
  { name: 'the same CORS origin twice', accepted: true, annotations: { [A('enable-cors')]: 'true', [A('cors-allow-origin')]: 'https://a.example, https://a.example' } },
  { name: 'an IPv4-mapped IPv6 CIDR over 39 characters', accepted: true, annotations: { [A('whitelist-source-range')]: '0000:0000:0000:0000:0000:ffff:192.168.100.200/128' } },
  { name: 'a path over 4096 characters', path: `/${'a'.repeat(5000)}` },
  { name: 'a path nginx.conf cannot quote (4096 characters)', path: `/${'b'.repeat(4095)}` },
  { name: 'an IPv6 CIDR with a zone id', annotations: { [A('allowlist-source-range')]: 'fe80::1%eth0/64' } },
  { name: 'session-cookie-path with a semicolon', annotations: { [A('affinity')]: 'cookie', [A('session-cookie-path')]: '/a;b' } },
  { name: 'canary-by-header-pattern \\u0041', canary: true, annotations: { [A('canary-by-header')]: 'x-c', [A('canary-by-header-pattern')]: '\\u0041' } },
  { name: 'a TLS Secret ending in a malformed CERTIFICATE block', brokenCert: true },
];

/** The bad Ingress evil/bad on shared.test (and its Secret), pointing at Service evil/victim. */
export function badObjects(c: BadCase, pem: Pem): unknown[] {
  const annotations = { ...c.annotations, ...(c.canary ? { [A('canary')]: 'true' } : {}) };
  const ing = ingress('bad', {
    namespace: 'evil',
    className: 'portico',
    host: c.brokenCert ? 'evil-tls.test' : 'shared.test',
    annotations,
    paths: [{ path: c.canary ? '/' : (c.path ?? '/evil'), type: 'Prefix', service: 'victim' }],
  });
  if (!c.brokenCert) return [ing];
  const broken = `${pem.cert}-----BEGIN CERTIFICATE-----\nMIIBroken\n-----END CERTIFICATE-----\n`;
  return [{ ...ing, spec: { ...ing.spec, tls: [{ hosts: ['evil-tls.test'], secretName: 'broken' }] } }, tlsSecret('broken', { cert: broken, key: pem.key }, 'evil')];
}
