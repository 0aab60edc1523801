// The certificates payload by entry (docs/adr/0056): each host's PEM as JSON, and the other fields (default, listener,
// plain, deep) as one more entry, so that a push can carry only the hosts whose certificate changed
// (lua/portico/certificate.lua's delta). At 100,000 Ingresses the whole payload is 10,000 hosts and about 25 MiB: one
// Secret rotated was that much JSON for nginx to decode and check, and again for every worker at its next handshake.
import { sha256 } from '../hash.js';
import { entryChanges } from './entry-changes.js';
import type { CertificatesPayload } from './tls.js';

/** The key of the entry that holds the payload's other fields: no host name is empty. */
export const REST_KEY = '';

/** A payload by entry: host → its PEM as JSON, REST_KEY → the other fields as a JSON object. Holds keys: never logged. */
export interface CertificateEntries {
  readonly entries: ReadonlyMap<string, string>;
  /** sha256 over the entries (each distinct PEM hashed once): what the plan compares. */
  readonly digest: string;
  /** The whole payload's JSON, made from the entries. */
  readonly whole: () => string;
}

interface PemText {
  readonly json: string;
  readonly hash: string;
}

/**
 * Makes the entries of payloads, keeping each distinct PEM's JSON and hash from one payload to the next: the hosts
 * that share a certificate, and the certificates that did not change, are encoded and hashed once.
 */
export class CertificateEntriesMaker {
  private pems = new Map<string, PemText>();

  of(payload: CertificatesPayload): CertificateEntries {
    const before = this.pems;
    const pems = new Map<string, PemText>();
    const text = (pem: string): PemText => {
      let t = pems.get(pem);
      if (t === undefined) {
        t = before.get(pem) ?? { json: JSON.stringify(pem), hash: sha256(pem) };
        pems.set(pem, t);
      }
      return t;
    };
    const entries = new Map<string, string>();
    const lines: string[] = [];
    for (const [host, pem] of Object.entries(payload.certificates)) {
      const t = text(pem);
      entries.set(host, t.json);
      lines.push(`${host} ${t.hash}`);
    }
    const restJson = JSON.stringify({ ...payload, certificates: undefined }); // JSON leaves an undefined field out
    entries.set(REST_KEY, restJson);
    this.pems = pems;
    const digest = sha256(`${lines.join('\n')}\n${restJson}`);
    // the whole body is made when a whole push asks for it and not kept: it holds every key (9 MiB at 100,000 Ingresses)
    return { entries, digest, whole: () => wholeBody(entries) };
  }
}

/** The whole payload's JSON from its entries (the same fields JSON.stringify of the payload gives). */
function wholeBody(entries: ReadonlyMap<string, string>): string {
  const hosts: string[] = [];
  for (const [host, json] of entries) if (host !== REST_KEY) hosts.push(`${JSON.stringify(host)}:${json}`);
  const rest = entries.get(REST_KEY) ?? '{}';
  return `{"certificates":{${hosts.join(',')}}${rest === '{}' ? '' : `,${rest.slice(1, -1)}`}}`;
}

/**
 * The delta body that takes Lua from the entries `held` to `now` (lua/portico/certificate.lua): the hosts set or
 * changed with their PEM, the hosts gone, and the other fields when they changed; undefined when nothing differs.
 */
export function certificatesDelta(held: ReadonlyMap<string, string>, now: ReadonlyMap<string, string>): { body: string; changed: string[]; removed: string[] } | undefined {
  const { changed, removed } = entryChanges(held, now);
  if (changed.length === 0 && removed.length === 0) return undefined;
  const set = changed.filter((host) => host !== REST_KEY).map((host) => `${JSON.stringify(host)}:${now.get(host) ?? 'null'}`);
  const rest = changed.includes(REST_KEY) ? `,"rest":${now.get(REST_KEY) ?? '{}'}` : '';
  // REST_KEY is in every payload's entries: never among the removed
  return { body: `{"set":{${set.join(',')}},"remove":${JSON.stringify(removed)}${rest}}`, changed, removed };
}
