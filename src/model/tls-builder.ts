// The accumulator of the TLS model: spec.tls, covered rule hosts, Gateway listeners and client-certificate auth,
// each host's certificate from its oldest claimant, every Secret read once.
import type { Ingress, Secret } from './input.js';
import { checkHost, checkLabel } from './names.js';
import type { IngressSettings } from './settings.js';
import { covers, findSecret, readCaSecret, readTlsSecret, type Read } from './tls-secrets.js';
import type { AuthTlsSettings, Certificate, ClientAuth, HostCertificate, IngressTls, TlsOptions } from './tls-types.js';
import type { ObjectRef, Problem } from './types.js';
import type { GatewayTlsHost } from './gateway/tls.js';
import { refKey } from './keys.js';
import type { AddProblem, Reason } from './types.js';
import { coded, problemOf, reasonText } from './problems.js';

/** Why an Ingress may not use a host (--strict-host-ownership, model/hosts.ts), else undefined. */
export type HostRefusal = (ingress: ObjectRef, host: string) => Reason | undefined;

/** Why an object may not set `what`, which reaches every path of `host`: it is not of the host owner's namespace (model/hosts.ts). */
export type HostWide = (object: ObjectRef, host: string, what: string) => Reason | undefined;

export const TLS_WIDE = 'TLS (with its ssl-redirect and HSTS)';
const AUTH_WIDE = 'client-certificate auth (auth-tls-*)';

/** Builds the TLS part of one model; every Secret is read once. */
export class TlsBuilder {
  readonly problems: Problem[] = [];
  private readonly certs = new Map<string, Read<Certificate>>();
  readonly used = new Map<string, Certificate>();
  readonly hosts = new Map<string, HostCertificate>();
  readonly clientAuth = new Map<string, ClientAuth>();
  readonly ingresses: Record<string, IngressTls> = {};

  constructor(
    private readonly secrets: readonly Secret[],
    private readonly opts: TlsOptions,
    private readonly refusal: HostRefusal = () => undefined,
    readonly hostWide: HostWide = () => undefined,
  ) {}

  /** One indexed lookup per reference (model/lookup.ts), the first of equal names as a scan would find. */
  private secret(ref: ObjectRef): Secret | undefined {
    return findSecret(this.secrets, ref);
  }

  readonly problem: AddProblem = (object, field, reason, severity = 'degraded') => {
    this.problems.push(problemOf(object, field, reason, severity));
  };

  certificate(ref: ObjectRef): Read<Certificate> {
    const id = refKey(ref.namespace, ref.name);
    let read = this.certs.get(id);
    if (!read) {
      read = readTlsSecret(this.secret(ref), ref);
      this.certs.set(id, read);
    }
    return read;
  }

  /** spec.tls of one Ingress: each host gets the certificate of the oldest Ingress that lists it. */
  addTls(ing: Ingress, ref: ObjectRef): void {
    (ing.spec?.tls ?? []).forEach((entry, i) => {
      const field = `spec.tls[${i}]`;
      const secretName = entry.secretName ?? '';
      const secretRef: ObjectRef = { kind: 'Secret', namespace: ref.namespace, name: secretName };
      const read = secretName ? this.certificate(secretRef) : undefined;
      if ((entry.hosts ?? []).length === 0 && read && !read.ok) {
        this.problem(ref, `${field}.secretName`, coded('SecretProblem', `${read.reason}; the hosts of this Ingress are served with the default certificate`));
      }
      for (const [j, raw] of (entry.hosts ?? []).entries()) {
        const host = raw.toLowerCase();
        const bad = checkHost(host);
        if (bad) {
          this.problem(ref, `${field}.hosts[${j}]`, bad, 'dropped');
          continue;
        }
        const refused = this.refusal(ref, host);
        if (refused) {
          this.problem(ref, `${field}.hosts[${j}]`, refused, 'dropped');
          continue;
        }
        const wide = this.hostWide(ref, host, TLS_WIDE);
        if (wide) {
          this.problem(ref, `${field}.hosts[${j}]`, wide);
          continue;
        }
        const holder = this.hosts.get(host);
        if (holder) {
          this.heldBy(holder, ref, host, read, `${field}.hosts[${j}]`);
          continue;
        }
        this.hosts.set(host, { host, ingress: ref, certificate: this.pick(read, host, ref, `${field}.secretName`) });
      }
    });
  }

  /**
   * A host an older Ingress already holds: it keeps its certificate (ingress-nginx does the same). This Ingress is still
   * served; when its own Secret names another certificate, the Warning says which one the host gets instead. When it is
   * the same certificate (two Ingresses sharing one Secret), nothing differs and nothing is said.
   */
  private heldBy(holder: HostCertificate, ref: ObjectRef, host: string, read: Read<Certificate> | undefined, field: string): void {
    if (holder.ingress.namespace === ref.namespace && holder.ingress.name === ref.name) return;
    const mine = read?.ok === true ? read.value.id : undefined;
    if (mine !== undefined && mine === holder.certificate) return;
    const theirs = holder.certificate !== undefined ? `Secret ${holder.certificate}` : 'the default certificate';
    this.problem(ref, field, `the certificate of ${host} comes from the older Ingress ${holder.ingress.namespace}/${holder.ingress.name} (${theirs}); this entry's is not used for it`);
  }

  /**
   * A rule host of the Ingress that no spec.tls entry lists (e.g. an entry without hosts) takes the certificate of
   * the first of the Ingress's TLS Secrets that covers it, as ingress-nginx does (it checks the certificate's names).
   * Hosts still without a certificate stay plain HTTP.
   */
  addCovered(ing: Ingress, ref: ObjectRef, ruleHosts: readonly string[]): void {
    const reads = (ing.spec?.tls ?? []).flatMap((e) => (e.secretName ? [this.certificate({ kind: 'Secret', namespace: ref.namespace, name: e.secretName })] : []));
    if (reads.length === 0) return;
    for (const host of ruleHosts) {
      if (this.hosts.has(host)) continue;
      const found = reads.find((r) => r.ok && covers(r.value, host));
      if (!found?.ok) continue;
      const wide = this.hostWide(ref, host, TLS_WIDE);
      if (wide) {
        this.problem(ref, 'spec.tls', wide);
        continue;
      }
      this.used.set(found.value.id, found.value);
      this.hosts.set(host, { host, ingress: ref, certificate: found.value.id });
    }
  }

  private pick(read: Read<Certificate> | undefined, host: string, ref: ObjectRef, field: string): string | undefined {
    if (!read) return undefined; // no secretName: the default certificate, as ingress-nginx does
    if (!read.ok) {
      this.problem(ref, field, coded('SecretProblem', `${read.reason}; ${host} is served with the default certificate`));
      return undefined;
    }
    if (!covers(read.value, host)) {
      this.problem(ref, field, coded('SecretProblem', `the certificate of Secret ${read.value.id} (${read.value.subject}) does not cover ${host}; ${host} is served with the default certificate`));
      return undefined;
    }
    this.used.set(read.value.id, read.value);
    return read.value.id;
  }

  /** One hostname of a Gateway's HTTPS listener (model/gateway/tls.ts): after every Ingress, so an Ingress keeps a host it lists. */
  addGatewayHost(g: GatewayTlsHost): void {
    // The listener's own hostname is the Gateway's claim; a hostname taken from attached routes is theirs too.
    const wide = [g.gateway, ...(g.routes ?? [])].every((r) => this.hostWide(r, g.host, TLS_WIDE) !== undefined);
    if (wide) {
      this.problem(g.gateway, g.field, this.hostWide(g.gateway, g.host, `${TLS_WIDE} of this listener`) ?? '');
      return;
    }
    const holder = this.hosts.get(g.host);
    if (holder) {
      const same = holder.ingress.kind === 'Gateway' && holder.ingress.namespace === g.gateway.namespace && holder.ingress.name === g.gateway.name;
      if (!same) this.problem(g.gateway, g.field, `the certificate of ${g.host} comes from ${holder.ingress.kind} ${holder.ingress.namespace}/${holder.ingress.name}`, 'dropped');
      return;
    }
    if (!g.secret) {
      this.problem(g.gateway, g.field, coded('SecretProblem', `${g.refused ?? 'no Secret'}; ${g.host} is served with the default certificate`));
      this.hosts.set(g.host, { host: g.host, ingress: g.gateway, certificate: undefined });
      return;
    }
    const read = this.certificate(g.secret);
    this.hosts.set(g.host, { host: g.host, ingress: g.gateway, certificate: this.pick(read, g.host, g.gateway, g.field) });
  }

  /** Client-certificate auth for the hosts of one Ingress (the oldest Ingress asking for it wins a host). */
  addClientAuth(ref: ObjectRef, auth: AuthTlsSettings, hosts: readonly string[]): string | undefined {
    const field = `metadata.annotations[${this.opts.annotationsPrefix}/auth-tls-secret]`;
    const parts = auth.secret.split('/');
    const [namespace, name] = parts.length === 2 ? [parts[0] ?? '', parts[1] ?? ''] : [ref.namespace, auth.secret];
    const bad =
      parts.length > 2 || checkLabel(name) || checkLabel(namespace)
        ? `${JSON.stringify(auth.secret.slice(0, 80))} is not a Secret name or namespace/name`
        : namespace !== ref.namespace
          ? `Secret ${namespace}/${name} is in another namespace; only Secrets of the Ingress's own namespace are used`
          : undefined;
    const secret: ObjectRef = { kind: 'Secret', namespace, name };
    const read = bad ? { ok: false as const, reason: bad } : readCaSecret(this.secret(secret), secret);
    if (!read.ok) {
      this.problem(ref, field, coded('SecretProblem', `${read.reason}; the paths of this Ingress answer 503`));
      return read.reason;
    }
    for (const host of hosts) {
      const wide = this.hostWide(ref, host, AUTH_WIDE);
      if (wide === undefined) continue;
      const why = `${reasonText(wide)}; the paths of this Ingress answer 503 rather than be served without the client certificates it asks for`;
      this.problem(ref, field, coded('HostConflict', why));
      return why;
    }
    for (const host of hosts) {
      if (this.clientAuth.has(host)) continue;
      this.clientAuth.set(host, {
        ingress: ref,
        secret,
        ...read.value,
        verify: auth.verify,
        depth: auth.depth,
        errorPage: auth.errorPage,
        passCertificate: auth.passCertificate,
        ...(auth.matchCn ? { matchCn: auth.matchCn } : {}),
      });
    }
    return undefined;
  }

  /** `settings`: what the annotation table read for this Ingress (ssl-redirect, force-ssl-redirect, auth-tls-*). */
  addIngress(ing: Ingress, settings: IngressSettings | undefined): void {
    const ref: ObjectRef = { kind: 'Ingress', namespace: ing.metadata?.namespace ?? 'default', name: ing.metadata?.name ?? '' };
    if (!ref.name || checkLabel(ref.namespace)) return; // refused whole by the main builder
    this.addTls(ing, ref);
    const hosts = [...new Set((ing.spec?.rules ?? []).map((r) => (r.host ?? '').toLowerCase()).filter((h) => h && !checkHost(h) && !this.refusal(ref, h)))];
    this.addCovered(ing, ref, hosts);
    const denied = settings?.authTls ? this.addClientAuth(ref, settings.authTls, hosts) : undefined;
    const entry: IngressTls = { sslRedirect: settings?.location.sslRedirect ?? this.opts.settings.sslRedirect, forceSslRedirect: settings?.location.forceSslRedirect ?? false, denied };
    const isDefault = entry.sslRedirect === this.opts.settings.sslRedirect && !entry.forceSslRedirect && !denied;
    if (!isDefault) this.ingresses[refKey(ref.namespace, ref.name)] = entry;
  }

  defaultCertificate(): string | undefined {
    const d = this.opts.defaultCertificate;
    if (!d) return undefined;
    const ref: ObjectRef = { kind: 'Secret', namespace: d.namespace, name: d.name };
    const read = this.certificate(ref);
    if (!read.ok) {
      this.problem(ref, '--default-ssl-certificate', coded('SecretProblem', `${read.reason}; the self-signed certificate is the default`));
      return undefined;
    }
    this.used.set(read.value.id, read.value);
    return read.value.id;
  }
}
