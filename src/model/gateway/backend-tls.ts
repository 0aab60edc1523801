// BackendTLSPolicy (gateway.networking.k8s.io/v1): which policy applies to each Service port, the backend TLS
// settings it gives a route's location (TLS, verified against its CA, SNI and name = validation.hostname), and the
// Accepted and ResolvedRefs verdict of every policy (the status room writes them per ancestor Gateway).
import { X509Certificate } from 'node:crypto';
import { sha256 } from '../../hash.js';
import type { ConfigMap, KubeObject, Snapshot } from '../input.js';
import { byName } from '../lookup.js';
import { nsKey } from '../keys.js';
import { checkHost, clip } from '../names.js';
import type { LocationSettings } from '../settings.js';
import type { ObjectRef } from '../types.js';

export interface BackendTLSPolicy extends KubeObject {
  readonly metadata?: KubeObject['metadata'] & { readonly generation?: number };
  readonly spec?: {
    readonly targetRefs?: readonly { readonly group?: string; readonly kind?: string; readonly name: string; readonly sectionName?: string }[];
    readonly validation?: {
      readonly caCertificateRefs?: readonly { readonly group?: string; readonly kind?: string; readonly name: string }[];
      readonly wellKnownCACertificates?: string;
      readonly hostname?: string;
      readonly subjectAltNames?: readonly { readonly type?: string; readonly hostname?: string; readonly uri?: string }[];
    };
    readonly options?: Readonly<Record<string, string>>;
  };
  readonly status?: unknown;
}

/** A condition's status, reason and message. */
export type Verdict = readonly [boolean, string, string];

/** What the model concluded about one policy: its conditions and, when accepted, the TLS its targets get. */
export interface PolicyJudgement {
  readonly policy: ObjectRef;
  readonly generation?: number;
  readonly accepted: Verdict;
  readonly resolvedRefs: Verdict;
  /** The backend TLS of its targets: settings to merge into a location, or why requests to them answer 503. */
  readonly tls: { readonly settings: LocationSettings } | { readonly denied: string };
  /** `namespace/name` of the Services (a section: `namespace/name#section`) this policy is the one applied to. */
  readonly targets: readonly string[];
}

/** Verification depth of backend certificates: a CA, intermediates, the backend's own certificate. */
const VERIFY_DEPTH = 4;
const PEM_CERT = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** The `ca.crt` of a ConfigMap as one PEM bundle, or why it is not one. */
export function readCaConfigMap(cm: ConfigMap | undefined, id: string): { pem: string } | { reason: string } {
  if (!cm) return { reason: `ConfigMap ${id} not found` };
  const text = cm.data?.['ca.crt'];
  if (text === undefined || text.trim() === '') return { reason: `ConfigMap ${id} has no ca.crt` };
  const blocks = text.match(PEM_CERT) ?? [];
  try {
    if (blocks.length === 0) throw new Error('no certificate');
    for (const b of blocks) new X509Certificate(b);
  } catch {
    return { reason: `ConfigMap ${id}: ca.crt is not a bundle of PEM certificates` };
  }
  return { pem: `${blocks.join('\n')}\n` };
}

/** The trusted CAs of a policy: a PEM bundle, the system bundle, or the ResolvedRefs failure and whether any is left. */
function trust(p: BackendTLSPolicy, snap: Snapshot, ns: string): { pem?: string; system?: true; resolved: Verdict; none?: string } {
  const v = p.spec?.validation ?? {};
  const refs = v.caCertificateRefs ?? [];
  if (refs.length > 0 && v.wellKnownCACertificates !== undefined) return { resolved: [true, 'ResolvedRefs', ''], none: 'caCertificateRefs and wellKnownCACertificates are exclusive' };
  if (refs.length === 0) {
    if (v.wellKnownCACertificates === 'System') return { system: true, resolved: [true, 'ResolvedRefs', 'the system CA certificates are trusted'] };
    const what =
      v.wellKnownCACertificates === undefined
        ? 'neither caCertificateRefs nor wellKnownCACertificates is set'
        : `wellKnownCACertificates ${JSON.stringify(clip(v.wellKnownCACertificates))} is not System`;
    return { resolved: [true, 'ResolvedRefs', ''], none: what };
  }
  const pems: string[] = [];
  const bad: { kind: boolean; why: string }[] = [];
  refs.forEach((r, i) => {
    const at = `spec.validation.caCertificateRefs[${i}]`;
    if ((r.group ?? '') !== '' || r.kind !== 'ConfigMap') {
      bad.push({ kind: true, why: `${at}: ${clip(r.group ?? '')}/${clip(r.kind ?? '')} is not a ConfigMap` });
      return;
    }
    const got = readCaConfigMap(byName(snap.configMaps, ns, r.name), `${ns}/${r.name}`);
    if ('reason' in got) bad.push({ kind: false, why: `${at}: ${got.reason}` });
    else pems.push(got.pem);
  });
  const resolved: Verdict =
    bad.length === 0
      ? [true, 'ResolvedRefs', 'every CA certificate reference resolved']
      : [false, bad.some((b) => b.kind) ? 'InvalidKind' : 'InvalidCACertificateRef', bad.map((b) => b.why).join('; ')];
  if (pems.length === 0) return { resolved, none: 'no valid CA certificate' };
  return { pem: pems.join(''), resolved };
}

/** A policy's verdict and TLS, before conflicts between policies are settled. */
function judge(p: BackendTLSPolicy, snap: Snapshot, grpc: boolean): Omit<PolicyJudgement, 'targets'> {
  const ns = p.metadata?.namespace ?? 'default';
  const policy: ObjectRef = { kind: 'BackendTLSPolicy', namespace: ns, name: p.metadata?.name ?? '' };
  const generation = p.metadata?.generation;
  const base = { policy, ...(generation !== undefined ? { generation } : {}) };
  const host = p.spec?.validation?.hostname ?? '';
  const t = trust(p, snap, ns);
  const refuse = (reason: string, why: string): Omit<PolicyJudgement, 'targets'> => ({
    ...base,
    accepted: [false, reason, `${why}; requests to its targets answer 503`],
    resolvedRefs: t.resolved,
    tls: { denied: `BackendTLSPolicy ${ns}/${policy.name}: ${why}` },
  });
  const badHost = host === '' ? 'validation.hostname is required' : (checkHost(host) ?? (host.includes('*') ? 'validation.hostname cannot be a wildcard' : undefined));
  if (badHost !== undefined) return refuse('Invalid', `spec.validation.hostname: ${badHost}`);
  if (t.none !== undefined) return refuse(t.resolved[0] ? 'Invalid' : 'NoValidCACertificate', t.none);
  // nginx verifies the backend's certificate against one name, the one it also sends as SNI (proxy_ssl_name): other
  // names to verify cannot be honoured, so such a policy fails closed rather than verify less than it asks.
  if ((p.spec?.validation?.subjectAltNames ?? []).length > 0) return refuse('Invalid', 'spec.validation.subjectAltNames are not supported (nginx verifies the SNI name only)');
  const settings: LocationSettings = {
    backendProtocol: grpc ? 'GRPCS' : 'HTTPS',
    sslVerify: true,
    sslVerifyDepth: VERIFY_DEPTH,
    sslName: host.toLowerCase(),
    sslServerName: true,
    ...(t.pem !== undefined ? { proxySsl: { secret: `BackendTLSPolicy ${ns}/${policy.name}`, caPem: t.pem, caDigest: sha256(t.pem) } } : {}),
  };
  return { ...base, accepted: [true, 'Accepted', 'the policy applies to its targets'], resolvedRefs: t.resolved, tls: { settings } };
}

/** Oldest first, then namespace/name: the specification's rule between conflicting policies. */
function byAge(a: BackendTLSPolicy, b: BackendTLSPolicy): number {
  const ta = a.metadata?.creationTimestamp ?? '9999';
  const tb = b.metadata?.creationTimestamp ?? '9999';
  if (ta !== tb) return ta < tb ? -1 : 1;
  return nsKey(a) < nsKey(b) ? -1 : nsKey(a) > nsKey(b) ? 1 : 0;
}

/** The policies of a snapshot judged once: which one applies to a Service port, and every policy's verdict. */
export class BackendTlsIndex {
  /** `namespace/service` or `namespace/service#section` → the oldest policy targeting it. */
  private readonly winners = new Map<string, BackendTLSPolicy>();
  private readonly judged = new Map<string, Omit<PolicyJudgement, 'targets'>>();
  private readonly conflicted = new Map<string, string>();
  private readonly targetsOf = new Map<string, string[]>();

  constructor(private readonly snap: Snapshot) {
    for (const p of [...(snap.backendTLSPolicies ?? [])].sort(byAge)) {
      const ns = p.metadata?.namespace ?? 'default';
      const mine: string[] = [];
      for (const t of p.spec?.targetRefs ?? []) {
        if ((t.group ?? '') !== '' || t.kind !== 'Service') continue;
        const key = `${ns}/${t.name}${t.sectionName !== undefined && t.sectionName !== '' ? `#${t.sectionName}` : ''}`;
        const held = this.winners.get(key);
        if (held === undefined) {
          this.winners.set(key, p);
          mine.push(key);
        } else if (held !== p && !this.conflicted.has(nsKey(p))) this.conflicted.set(nsKey(p), `BackendTLSPolicy ${nsKey(held)} is older and targets ${key.replace('#', ' port ')} too`);
      }
      this.targetsOf.set(nsKey(p), mine);
    }
  }

  private judgement(p: BackendTLSPolicy, grpc: boolean): Omit<PolicyJudgement, 'targets'> {
    const key = `${nsKey(p)}#${grpc ? 'grpc' : 'http'}`;
    const got = this.judged.get(key) ?? judge(p, this.snap, grpc);
    this.judged.set(key, got);
    return got;
  }

  /** The policy applied to port `port` of Service `namespace/name` (its named section first, then the whole Service). */
  policyFor(namespace: string, name: string, port: number): BackendTLSPolicy | undefined {
    const svc = byName(this.snap.services, namespace, name);
    const section = svc?.spec?.ports?.find((p) => p.port === port)?.name;
    return (section !== undefined && section !== '' ? this.winners.get(`${namespace}/${name}#${section}`) : undefined) ?? this.winners.get(`${namespace}/${name}`);
  }

  /** The backend TLS of a Service port: none (plain), settings, or why its requests answer 503. */
  tlsFor(namespace: string, name: string, port: number, grpc: boolean): PolicyJudgement['tls'] | undefined {
    const p = this.policyFor(namespace, name, port);
    return p === undefined ? undefined : this.judgement(p, grpc).tls;
  }

  /** Every policy's verdict: a conflicted one is not accepted (reason Conflicted) and applies to nothing. */
  judgements(): PolicyJudgement[] {
    return [...(this.snap.backendTLSPolicies ?? [])].map((p) => {
      const j = this.judgement(p, false);
      const conflict = this.conflicted.get(nsKey(p));
      const targets = this.targetsOf.get(nsKey(p)) ?? [];
      if (conflict !== undefined && targets.length === 0) return { ...j, accepted: [false, 'Conflicted', conflict], targets };
      return { ...j, targets };
    });
  }
}

/** The backendRefs of a rule as far as backend TLS reads them. */
type RuleBackend = { readonly group?: string; readonly kind?: string; readonly name: string; readonly namespace?: string; readonly port?: number; readonly weight?: number };

/**
 * The backend TLS settings of one rule's location, from the policies of the Services its backendRefs reach (a
 * backendRef to another namespace's Service gets that namespace's policy). nginx sets backend TLS per location, so
 * backends of one rule with different TLS cannot be served together: the rule answers 503 with `problem` then.
 */
export function ruleTls(index: BackendTlsIndex, namespace: string, backends: readonly RuleBackend[], grpc: boolean): { settings?: LocationSettings; problem?: string } {
  const seen = new Map<string, PolicyJudgement['tls'] | undefined>();
  for (const b of backends) {
    if ((b.weight ?? 1) === 0 || (b.group ?? '') !== '' || (b.kind ?? 'Service') !== 'Service' || b.port === undefined) continue;
    const tls = index.tlsFor(b.namespace ?? namespace, b.name, b.port, grpc);
    seen.set(tls === undefined ? 'plain' : JSON.stringify(tls), tls);
  }
  const protocol = grpc ? 'GRPCS' : 'HTTPS';
  if (seen.size > 1) {
    const problem = 'its backendRefs reach Services with different BackendTLSPolicies (or some with none); nginx sets backend TLS once per rule: requests answer 503';
    return { settings: { backendProtocol: protocol, proxySsl: { secret: 'BackendTLSPolicy', denied: problem } }, problem };
  }
  const [tls] = seen.values();
  if (tls === undefined) return {};
  if ('denied' in tls) return { settings: { backendProtocol: protocol, proxySsl: { secret: 'BackendTLSPolicy', denied: tls.denied } }, problem: `${tls.denied}: requests answer 503` };
  return { settings: tls.settings };
}
