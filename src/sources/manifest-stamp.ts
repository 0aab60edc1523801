// What local mode gives a manifest that the API server would: a creationTimestamp when it has none, and a content
// resourceVersion that tells a later read's unchanged objects from changed ones.
import { randomBytes } from 'node:crypto';
import { sha256 } from '../hash.js';
import { compactText, nothingToDrop, type Kind, type KubeObject } from '../store/kinds.js';

/**
 * The content version's placeholder while it is digested (stamp): a per-process nonce no manifest holds. The build
 * worker stamps with the main thread's (stampInPlace), so that both digest an object the same.
 */
export const PLACEHOLDER = `\u0000portico-rv-${randomBytes(12).toString('hex')}`;

/**
 * Kinds whose age the model reads: host ownership between namespaces (ADR 0008), route, listener and policy precedence.
 * Their first-seen time is kept for as long as the source runs, so an object that is gone for one read (an editor that
 * saves by delete and write) comes back as old as it was and keeps what it owned. Other kinds keep the time of the
 * object the last read gave: at 100,000 Ingresses a first-seen entry for each Service, EndpointSlice and Secret of the
 * folder was 29 MiB of the controller's heap (docs/adr/0060).
 */
export const AGED: ReadonlySet<Kind> = new Set<Kind>(['Ingress', 'Gateway', 'HTTPRoute', 'GRPCRoute', 'TLSRoute', 'TCPRoute', 'UDPRoute', 'ListenerSet', 'BackendTLSPolicy']);

export class ManifestStamper {
  /** First time each object of an AGED kind without a creationTimestamp was seen. */
  private readonly firstSeen = new Map<string, string>();

  /**
   * `earlier`: the creationTimestamp this object was given before (the last read's object of the same key), for a kind
   * whose first-seen time is not kept. `once`: a read that no other follows (`portico render`): no content version.
   */
  stamp(kind: Kind, key: string, obj: KubeObject, earlier: string | undefined, once: boolean): KubeObject {
    const meta = obj.metadata ?? {};
    let created = meta.creationTimestamp;
    if (created === undefined && AGED.has(kind) && !once) {
      const id = `${kind}/${key}`;
      created = this.firstSeen.get(id) ?? new Date().toISOString();
      this.firstSeen.set(id, created);
    }
    created ??= earlier ?? new Date().toISOString();
    if (once && obj.metadata !== undefined) {
      // read once: the object and its metadata are parse.ts's copies, this source's alone; set in place, not copied again
      if (meta.creationTimestamp === undefined) (meta as { creationTimestamp?: string }).creationTimestamp = created;
      return obj;
    }
    if (obj.metadata === undefined) return withoutMetadata(obj, created);
    const text = stampInPlace(kind, obj, created, PLACEHOLDER);
    return text === undefined ? obj : compactText(text, kind); // without a text, the store trims a copy
  }

  /** A first read stamped elsewhere (the build worker, split-read.ts) gave this object of an AGED kind its age. */
  remember(kind: Kind, key: string, created: string): void {
    if (AGED.has(kind)) this.firstSeen.set(`${kind}/${key}`, created);
  }
}

/** An object with no metadata, stamped (a copy: parse.ts gives every kept object a metadata, so never in practice). */
export function withoutMetadata(obj: KubeObject, created: string): KubeObject {
  return { ...obj, metadata: { creationTimestamp: created, resourceVersion: sha256(JSON.stringify(obj), 16) } };
}

/**
 * `obj` (parse.ts's copy, with a metadata: its reader's alone) stamped in place with `created` and its content version:
 * the digest of its JSON with `placeholder` for itself. Returns that JSON with the placeholder replaced, which is the
 * stored object's own (compactText), so each object is stringified once; undefined when the store drops something of
 * it (it then trims a copy, made from the object).
 */
export function stampInPlace(kind: Kind, obj: KubeObject, created: string, placeholder: string): string | undefined {
  const m = obj.metadata as { creationTimestamp?: string; resourceVersion?: string };
  m.creationTimestamp = created;
  m.resourceVersion = placeholder;
  const text = JSON.stringify(obj);
  const rv = sha256(text, 16);
  m.resourceVersion = rv;
  if (!nothingToDrop(obj, kind)) return undefined;
  const quoted = JSON.stringify(placeholder);
  const at = text.indexOf(quoted);
  if (at < 0) return undefined;
  return `${text.slice(0, at)}${JSON.stringify(rv)}${text.slice(at + quoted.length)}`;
}
