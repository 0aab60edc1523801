// The request log and injected faults: what tests count (status writes) and how they make chosen requests fail.
import { ApiError } from './status.js';

/** One request as the double answered it. */
export interface RequestRecord {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  /** get, list, watch, create, update, patch, delete, deletecollection, discovery or unknown. */
  readonly verb: string;
  readonly kind: string | undefined;
  readonly apiVersion: string | undefined;
  readonly namespace: string | undefined;
  readonly name: string | undefined;
  readonly subresource: string | undefined;
  readonly code: number;
}

/** Which requests a fault applies to; every field given must match. kind is "Ingress", apiVersion "networking.k8s.io/v1". */
export interface RequestMatch {
  readonly verb?: string;
  readonly kind?: string;
  readonly apiVersion?: string;
  readonly namespace?: string;
  readonly name?: string;
  readonly subresource?: string;
}

/** How a matched request fails: HTTP code, Status reason, and how many matching requests fail (default 1). */
export interface FaultSpec {
  readonly code: number;
  readonly reason?: string;
  readonly message?: string;
  readonly times?: number;
}

const REASONS: Readonly<Record<number, string>> = { 409: 'Conflict', 429: 'TooManyRequests', 500: 'InternalError', 503: 'ServiceUnavailable', 504: 'Timeout' };

function matches(m: RequestMatch, r: Omit<RequestRecord, 'code'>): boolean {
  return (Object.keys(m) as (keyof RequestMatch)[]).every((key) => m[key] === undefined || m[key] === r[key]);
}

/** Faults waiting for their requests. */
export class Faults {
  private readonly pending: { match: RequestMatch; spec: FaultSpec; left: number }[] = [];

  add(match: RequestMatch, spec: FaultSpec): void {
    this.pending.push({ match, spec, left: spec.times ?? 1 });
  }

  clear(): void {
    this.pending.length = 0;
  }

  /** The error this request must fail with, if a fault matches it (using up one of its times). */
  take(r: Omit<RequestRecord, 'code'>): ApiError | undefined {
    const i = this.pending.findIndex((f) => matches(f.match, r));
    if (i < 0) return undefined;
    const f = this.pending[i]!;
    f.left--;
    if (f.left <= 0) this.pending.splice(i, 1);
    const reason = f.spec.reason ?? REASONS[f.spec.code] ?? 'InternalError';
    return new ApiError(f.spec.code, reason, f.spec.message ?? `injected fault: ${reason}`);
  }
}
