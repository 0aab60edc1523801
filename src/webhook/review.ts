// The admission decision for Ingresses: pure model code only — no process, no file, no nginx, nothing executed.
//
// ingress-nginx's webhook rendered the candidate into nginx.conf and ran `nginx -t` on it, so a hostile Ingress
// reached code that executed (CVE-2025-1974). Here the candidate only ever goes through buildModel, the same pure
// translation every sync runs, and the answer is the list of problems it reports for that Ingress.
import type { Ingress, Snapshot } from '../model/input.js';
import { classSelector } from '../model/classes.js';
import { describeProblem } from '../model/problems.js';
import type { Problem } from '../model/types.js';
import type { Checker } from '../pipeline/build.js';
import { inNamespaces, neighbourIngresses } from './neighbours.js';

export const ADMISSION_API_VERSION = 'admission.k8s.io/v1';
/** At most this many problems are spelled out in one answer (a hostile Ingress may have thousands). */
const MAX_LISTED = 20;

/** What Portico would do with a candidate Ingress. */
export type Verdict =
  | { readonly allowed: true; readonly why: 'not-ingress' | 'operation' | 'not-ours' | 'valid'; readonly warnings: readonly string[] }
  | { readonly allowed: false; readonly message: string; readonly warnings: readonly string[] };

export interface AdmissionResponse {
  readonly uid: string;
  readonly allowed: boolean;
  readonly status?: { readonly code: number; readonly reason: string; readonly message: string };
  readonly warnings?: readonly string[];
}

export interface AdmissionReviewReply {
  readonly apiVersion: typeof ADMISSION_API_VERSION;
  readonly kind: 'AdmissionReview';
  readonly response: AdmissionResponse;
}

/** An answer to one HTTP request: a review reply, or a 400 for a body that is not an AdmissionReview v1. */
export type ReviewOutcome = { readonly ok: true; readonly reply: AdmissionReviewReply; readonly verdict: Verdict } | { readonly ok: false; readonly error: string };

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function listed(lines: readonly string[]): string[] {
  const head = lines.slice(0, MAX_LISTED);
  return lines.length > MAX_LISTED ? [...head, `… and ${lines.length - MAX_LISTED} more`] : head;
}

/**
 * Decides on one candidate Ingress against what the store holds. Another class's Ingress is allowed untouched;
 * ours is refused when the model would leave any part of it out ('dropped' problems), with the same text the log
 * and the Warning Event give; 'degraded' problems (e.g. a Service that does not exist yet) only warn.
 */
export function admitIngress(candidate: Ingress, snapshot: Snapshot, check: Checker): Verdict {
  if (!ours(candidate, snapshot, check)) return { allowed: true, why: 'not-ours', warnings: [] };
  let problems;
  try {
    problems = check.problems(judgedSnapshot(candidate, snapshot, check));
  } catch (err) {
    return malformed(candidate, err);
  }
  return verdictOf(candidate, problems);
}

/** Whether the candidate is of this controller's class (another class's Ingress is allowed untouched). */
export function ours(candidate: Ingress, snapshot: Snapshot, check: Checker): boolean {
  return classSelector(snapshot.ingressClasses, check.options)(candidate);
}

/** The answer when the model threw on the candidate: only a body the API server would never send (its schema validation runs first) gets here. */
export function malformed(candidate: Ingress, err: unknown): Verdict {
  const ref = `${candidate.metadata?.namespace ?? 'default'}/${candidate.metadata?.name ?? ''}`;
  return { allowed: false, message: `Ingress ${ref} is malformed: ${err instanceof Error ? err.message : String(err)}`, warnings: [] };
}

/** The verdict on our candidate from the problems of a model it was judged in: its own problems only. */
export function verdictOf(candidate: Ingress, problems: readonly Problem[]): Verdict {
  const ns = candidate.metadata?.namespace ?? 'default';
  const name = candidate.metadata?.name ?? '';
  const mine = problems.filter((p) => p.object.kind === 'Ingress' && p.object.namespace === ns && p.object.name === name);
  const dropped = mine.filter((p) => p.severity === 'dropped').map(describeProblem);
  const warnings = listed(mine.filter((p) => p.severity === 'degraded').map(describeProblem));
  if (dropped.length > 0) return { allowed: false, message: listed(dropped).join('; '), warnings };
  return { allowed: true, why: 'valid', warnings };
}

/**
 * The snapshot a candidate is judged on: its host neighbourhood (neighbours.ts) with the candidate in it, and the
 * Services and EndpointSlices of those Ingresses' namespaces (an Ingress's backends are in its own namespace; the
 * default backend flag's namespace is kept too); the whole cluster when the neighbourhood cannot be told apart.
 */
export function judgedSnapshot(candidate: Ingress, snapshot: Snapshot, check: Checker): Snapshot {
  const ns = candidate.metadata?.namespace ?? 'default';
  const name = candidate.metadata?.name ?? '';
  const near = neighbourIngresses(candidate, snapshot, check.options);
  if (!near) return { ...snapshot, ingresses: [...snapshot.ingresses.filter((i) => (i.metadata?.namespace ?? 'default') !== ns || i.metadata?.name !== name), candidate] };
  const spaces = new Set([ns, ...near.map((i) => i.metadata?.namespace ?? 'default')]);
  const dbs = check.options.defaultBackendService;
  if (dbs) spaces.add(dbs.namespace);
  return { ...snapshot, ingresses: [...near, candidate], services: inNamespaces(snapshot.services, spaces), endpointSlices: inNamespaces(snapshot.endpointSlices, spaces) };
}

/** The candidate of a review request, with its namespace filled in from the request when the object omits it. */
function candidateOf(request: Record<string, unknown>): Ingress | undefined {
  const object = request['object'];
  if (!isRecord(object)) return undefined;
  const meta = isRecord(object['metadata']) ? object['metadata'] : {};
  const namespace = typeof meta['namespace'] === 'string' && meta['namespace'] !== '' ? meta['namespace'] : request['namespace'];
  const name = typeof meta['name'] === 'string' && meta['name'] !== '' ? meta['name'] : request['name'];
  // The API server validated the object against the Ingress schema before calling us; buildModel is also guarded.
  return { ...object, metadata: { ...meta, namespace, name } } as Ingress;
}

/** What a request asks: an answer without judging (not an Ingress, not a CREATE or UPDATE, no object), or a candidate to judge. */
export function requestOf(request: Record<string, unknown>): { readonly verdict: Verdict } | { readonly candidate: Ingress } {
  const kind = request['kind'];
  if (!isRecord(kind) || kind['group'] !== 'networking.k8s.io' || kind['kind'] !== 'Ingress') {
    return { verdict: { allowed: true, why: 'not-ingress', warnings: [] } };
  }
  const operation = request['operation'];
  if (operation !== 'CREATE' && operation !== 'UPDATE') return { verdict: { allowed: true, why: 'operation', warnings: [] } };
  const candidate = candidateOf(request);
  if (!candidate) return { verdict: { allowed: false, message: 'the review request carries no Ingress object', warnings: [] } };
  return { candidate };
}

/** The request of an AdmissionReview v1 body with its uid, or why the body is not one. */
export function envelopeOf(body: unknown): { readonly ok: true; readonly uid: string; readonly request: Record<string, unknown> } | { readonly ok: false; readonly error: string } {
  if (!isRecord(body) || body['apiVersion'] !== ADMISSION_API_VERSION || body['kind'] !== 'AdmissionReview') {
    return { ok: false, error: `expected an AdmissionReview of ${ADMISSION_API_VERSION}` };
  }
  const request = body['request'];
  if (!isRecord(request) || typeof request['uid'] !== 'string' || request['uid'] === '') {
    return { ok: false, error: 'the AdmissionReview has no request.uid' };
  }
  return { ok: true, uid: request['uid'], request };
}

/** The AdmissionReview reply carrying `verdict` for the request `uid`. */
export function outcomeOf(uid: string, verdict: Verdict): ReviewOutcome {
  const warnings = verdict.warnings.length > 0 ? { warnings: verdict.warnings } : {};
  const response: AdmissionResponse = verdict.allowed
    ? { uid, allowed: true, ...warnings }
    : { uid, allowed: false, status: { code: 400, reason: 'BadRequest', message: verdict.message }, ...warnings };
  return { ok: true, verdict, reply: { apiVersion: ADMISSION_API_VERSION, kind: 'AdmissionReview', response } };
}

/** Answers one AdmissionReview v1 body (already JSON-parsed). */
export function reviewAdmission(body: unknown, snapshot: Snapshot, check: Checker): ReviewOutcome {
  const env = envelopeOf(body);
  if (!env.ok) return env;
  const asked = requestOf(env.request);
  return outcomeOf(env.uid, 'verdict' in asked ? asked.verdict : admitIngress(asked.candidate, snapshot, check));
}
