// TLS listeners in Terminate mode (docs/adr/0032): the certificate the stream section terminates their connections
// with, read from the listener's first certificateRef as an HTTPS listener's (model/gateway/tls.ts).
import { sha256 } from '../../hash.js';
import type { Snapshot } from '../input.js';
import { byName } from '../lookup.js';
import { readTlsSecret } from '../tls-secrets.js';
import type { Sensitive } from '../tls-types.js';
import type { ServedListener } from './attach.js';
import { terminates } from './tls-listener.js';
import { secretOf } from './tls.js';

/** The certificate chain and key (one PEM, never serialized) of a Secret, and the digest that names its file. */
export interface StreamCertificate {
  /** `namespace/name` of the Secret. */
  readonly secret: string;
  /** sha256 of the PEM: a changed Secret is a new file name, so nginx.conf changes and nginx reloads. */
  readonly digest: string;
  readonly pem: Sensitive;
}

/** How Portico terminates the connections of a TLS listener in Terminate mode. */
export interface TlsTermination {
  /** `namespace/gateway/listener`, for the comments of nginx.conf. */
  readonly listener: string;
  /** Undefined: the listener's certificate is unusable (its ResolvedRefs says why) and Portico's default one serves. */
  readonly certificate?: StreamCertificate;
}

/** The termination of a served TLS listener in Terminate mode; undefined for Passthrough (and any other protocol). */
export function terminationOf(s: ServedListener, snapshot: Pick<Snapshot, 'secrets' | 'referenceGrants'>): TlsTermination | undefined {
  if (s.listener.protocol !== 'TLS' || !terminates(s.listener)) return undefined;
  const listener = `${s.gateway.namespace}/${s.gateway.name}/${s.listener.name}`;
  const which = secretOf(s, snapshot.referenceGrants ?? []);
  if (!('secret' in which)) return { listener };
  const { namespace, name } = which.secret;
  const read = readTlsSecret(byName(snapshot.secrets, namespace, name), which.secret);
  if (!read.ok) return { listener };
  return { listener, certificate: { secret: `${namespace}/${name}`, digest: sha256(read.value.pem.reveal()), pem: read.value.pem } };
}
