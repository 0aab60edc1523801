// Gateway frontend client-certificate validation (spec.tls.frontend, Gateway API v1.6): the CA bundle and mode each
// HTTPS listener's clients are verified with (the perPort entry of its port, else the default), the listener
// conditions of bad CA references, and the Gateway's InsecureFrontendValidationMode condition. docs/adr/0036.
import { sha256 } from '../../hash.js';
import type { ConfigMap, Secret } from '../input.js';
import { byName } from '../lookup.js';
import { clip } from '../names.js';
import { findSecret, readCaSecret, type CaBundle } from '../tls-secrets.js';
import type { ObjectRef } from '../types.js';
import type { FrontendTlsValidation, Gateway, GatewayObjectReference, Listener, ReferenceGrant } from './api.js';
import { readCaConfigMap } from './backend-tls.js';
import { granted } from './grants.js';

/** A condition outcome: status, the specification's reason, a message (as model/gateway/listeners.ts Outcome). */
type Outcome = readonly [ok: boolean, reason: string, message: string];

export type FrontendMode = 'AllowValidOnly' | 'AllowInsecureFallback';

/** What a listener's clients are verified against, once its references resolved. */
export interface FrontendCa {
  readonly gateway: ObjectRef;
  /** The CA certificates of every usable reference, one bundle (no CRL). */
  readonly ca: CaBundle;
  readonly mode: FrontendMode;
  /** `spec.tls.frontend.default.validation` or `spec.tls.frontend.perPort[i].tls.validation`, for Problems. */
  readonly field: string;
}

/** The verdict on one HTTPS listener's validation: its ResolvedRefs, an Accepted refusal, the CA when usable. */
export interface FrontendJudgement {
  readonly resolvedRefs: Outcome;
  /** Set when the listener may not be served: no usable CA (NoValidCACertificate), or an unknown mode. */
  readonly refused?: Outcome;
  readonly ca?: FrontendCa;
}

/** What the references are read from. */
export interface FrontendSnapshot {
  readonly secrets: readonly Secret[];
  readonly configMaps?: readonly ConfigMap[];
  readonly referenceGrants?: readonly ReferenceGrant[];
}

/** The validation that applies on `port`: its perPort entry (even one without validation) overrides the default. */
export function validationFor(g: Gateway, port: number): { readonly validation: FrontendTlsValidation; readonly field: string } | undefined {
  const f = g.spec?.tls?.frontend;
  const perPort = f?.perPort ?? [];
  const i = perPort.findIndex((p) => p.port === port);
  if (i >= 0) {
    const v = perPort[i]?.tls?.validation;
    return v ? { validation: v, field: `spec.tls.frontend.perPort[${i}].tls.validation` } : undefined;
  }
  const v = f?.default?.validation;
  return v ? { validation: v, field: 'spec.tls.frontend.default.validation' } : undefined;
}

/** One CA reference read, or its ResolvedRefs reason and message. */
function readRef(r: GatewayObjectReference, at: string, gateway: ObjectRef, snap: FrontendSnapshot): { pem: string } | { reason: string; why: string } {
  const group = r.group ?? '';
  const kind = r.kind ?? '';
  if ((group !== '' && group !== 'core') || (kind !== 'ConfigMap' && kind !== 'Secret')) {
    return { reason: 'InvalidCACertificateKind', why: `${at}: ${clip(group)}/${clip(kind)} is not a ConfigMap or a Secret` };
  }
  const ns = r.namespace ?? gateway.namespace;
  if (ns !== gateway.namespace && !granted(snap.referenceGrants ?? [], { namespace: gateway.namespace, kind: 'Gateway' }, ns, kind, r.name)) {
    return { reason: 'RefNotPermitted', why: `${at}: no ReferenceGrant in namespace ${ns} lets Gateways of ${gateway.namespace} refer to ${kind} ${clip(r.name)}` };
  }
  if (kind === 'ConfigMap') {
    const got = readCaConfigMap(byName(snap.configMaps ?? [], ns, r.name), `${ns}/${clip(r.name)}`);
    return 'reason' in got ? { reason: 'InvalidCACertificateRef', why: `${at}: ${got.reason}` } : got;
  }
  const ref: ObjectRef = { kind: 'Secret', namespace: ns, name: r.name };
  const read = readCaSecret(findSecret(snap.secrets, ref), ref);
  return read.ok ? { pem: read.value.caPem } : { reason: 'InvalidCACertificateRef', why: `${at}: ${read.reason}` };
}

/**
 * The validation of an HTTPS listener, undefined for other listeners and when none applies to its port. As the
 * specification says: any bad reference makes ResolvedRefs False (the first one's reason); when none is usable the
 * listener is not Accepted (NoValidCACertificate) and is not served, so no client reaches it unverified.
 */
export function judgeFrontend(g: Gateway, gateway: ObjectRef, l: Listener, snap: FrontendSnapshot): FrontendJudgement | undefined {
  if (l.protocol !== 'HTTPS') return undefined;
  const found = validationFor(g, l.port);
  if (!found) return undefined;
  const { validation, field } = found;
  const refs = validation.caCertificateRefs ?? [];
  const pems: string[] = [];
  const bad: { reason: string; why: string }[] = [];
  refs.forEach((r, i) => {
    const got = readRef(r, `${field}.caCertificateRefs[${i}]`, gateway, snap);
    if ('pem' in got) pems.push(got.pem);
    else bad.push(got);
  });
  if (refs.length === 0) bad.push({ reason: 'InvalidCACertificateRef', why: `${field}.caCertificateRefs is empty` });
  const first = bad[0];
  const resolvedRefs: Outcome = first === undefined ? [true, 'ResolvedRefs', 'every reference resolved'] : [false, first.reason, bad.map((b) => b.why).join('; ')];
  const mode = validation.mode ?? 'AllowValidOnly';
  if (mode !== 'AllowValidOnly' && mode !== 'AllowInsecureFallback') {
    return { resolvedRefs, refused: [false, 'UnsupportedValue', `${field}.mode ${JSON.stringify(clip(String(mode)))} is not AllowValidOnly or AllowInsecureFallback`] };
  }
  if (pems.length === 0) return { resolvedRefs, refused: [false, 'NoValidCACertificate', `${field}: no usable CA certificate; the listener is not served`] };
  const caPem = pems.join('');
  return { resolvedRefs, ca: { gateway, ca: { caPem, crlPem: undefined, caDigest: sha256(caPem), crlDigest: undefined }, mode, field } };
}

/**
 * A listener's Accepted and ResolvedRefs with its frontend validation judged: a validation without a usable CA
 * refuses an otherwise accepted listener; a bad CA reference is its ResolvedRefs unless a certificateRef failed first.
 */
export function frontendOutcomes(
  g: Gateway,
  gateway: ObjectRef,
  l: Listener,
  snap: FrontendSnapshot,
  so: { readonly accepted: Outcome; readonly certs: Outcome },
): { accepted: Outcome; resolvedRefs: Outcome } {
  const { accepted, certs } = so;
  const front = judgeFrontend(g, gateway, l, snap);
  if (front === undefined) return { accepted, resolvedRefs: certs };
  return { accepted: front.refused && accepted[0] ? front.refused : accepted, resolvedRefs: certs[0] ? front.resolvedRefs : certs };
}

/** The Gateway's InsecureFrontendValidationMode condition: True (ConfigurationChanged) when some validation allows insecure fallback. */
export function insecureFrontendCondition(g: Gateway): Outcome | undefined {
  const f = g.spec?.tls?.frontend;
  const all = [{ field: 'spec.tls.frontend.default', v: f?.default?.validation }, ...(f?.perPort ?? []).map((p, i) => ({ field: `spec.tls.frontend.perPort[${i}]`, v: p.tls?.validation }))];
  const insecure = all.filter((x) => x.v?.mode === 'AllowInsecureFallback').map((x) => x.field);
  if (insecure.length === 0) return undefined;
  return [true, 'ConfigurationChanged', `${insecure.join(', ')}: clients without a valid certificate are served (mode AllowInsecureFallback)`];
}
