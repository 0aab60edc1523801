// Resolves `proxy-ssl-secret`: the backend CA (and client certificate) a location verifies and presents to its backend.
// A missing or invalid Secret closes the Ingress's paths (503) with a Problem: never proxy without the check asked for.
import { sha256 } from '../hash.js';
import type { Snapshot } from '../model/input.js';
import type { IngressSettings, ProxySsl } from '../model/settings.js';
import { findSecret, readCaSecret, readTlsSecret, secretText } from '../model/tls-secrets.js';
import { Sensitive } from '../model/tls-types.js';
import type { ObjectRef, Problem } from '../model/types.js';

export interface ProxySslOptions {
  readonly prefix: string;
  /** The ConfigMap's `allow-cross-namespace-resources`. */
  readonly allowCrossNamespace: boolean;
}

/** Reads the Secret `ref` (`name` or `namespace/name`) for an Ingress: its files, or why they cannot be used. */
function readProxySsl(ref: string, snap: Snapshot, ing: ObjectRef, allowCrossNamespace: boolean): ProxySsl {
  const [namespace = '', name = ''] = ref.includes('/') ? ref.split('/') : [ing.namespace, ref];
  const secret = `${namespace}/${name}`;
  if (namespace !== ing.namespace && !allowCrossNamespace) {
    return { secret, denied: `Secret ${secret} is in another namespace than the Ingress; set allow-cross-namespace-resources in the ConfigMap to allow it` };
  }
  const sref: ObjectRef = { kind: 'Secret', namespace, name };
  const found = findSecret(snap.secrets, sref);
  const ca = readCaSecret(found, sref);
  if (!ca.ok) return { secret, denied: ca.reason };
  const base = {
    secret,
    caPem: ca.value.caPem,
    caDigest: ca.value.caDigest,
    ...(ca.value.crlPem !== undefined && ca.value.crlDigest !== undefined ? { crlPem: ca.value.crlPem, crlDigest: ca.value.crlDigest } : {}),
  };
  if (found === undefined || (secretText(found, 'tls.crt') === undefined && secretText(found, 'tls.key') === undefined)) return base;
  const client = readTlsSecret(found, sref);
  if (!client.ok) return { secret, denied: `${client.reason} (the client certificate for the backend)` };
  const pem = client.value.pem.reveal();
  return { ...base, client: { digest: sha256(pem), pem: new Sensitive(pem) } };
}

/** The settings of one chosen Ingress with `proxy-ssl-secret` resolved; unchanged when it names none. */
export function resolveProxySsl(s: IngressSettings, snap: Snapshot, ing: ObjectRef, o: ProxySslOptions): { settings: IngressSettings; problems: Problem[] } {
  const ref = s.location.sslSecret;
  if (ref === undefined) return { settings: s, problems: [] };
  const proxySsl = readProxySsl(ref, snap, ing, o.allowCrossNamespace);
  const settings = { ...s, location: { ...s.location, sslSecret: proxySsl.secret, proxySsl } };
  if (proxySsl.denied === undefined) return { settings, problems: [] };
  return {
    settings,
    problems: [{ object: ing, field: `metadata.annotations[${o.prefix}/proxy-ssl-secret]`, reason: `${proxySsl.denied}; the paths of this Ingress answer 503`, severity: 'degraded' }],
  };
}
