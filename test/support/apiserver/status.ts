// metav1.Status bodies and the ApiError the double throws to answer a request with one.

/** A metav1.Status cause, as in the details of a 422 Invalid. */
export interface StatusCause {
  readonly reason: string;
  readonly message: string;
  readonly field: string;
}

/** The subset of metav1.Status the double sends. */
export interface StatusBody {
  readonly kind: 'Status';
  readonly apiVersion: 'v1';
  readonly metadata: Record<string, never>;
  readonly status: 'Failure' | 'Success';
  readonly message: string;
  readonly reason: string;
  readonly details?: { name?: string; group?: string; kind?: string; causes?: StatusCause[] };
  readonly code: number;
}

/** Who an error is about: group and plural, as the real apiserver reports them in Status.details. */
export interface Subject {
  readonly group: string;
  readonly plural: string;
  readonly name?: string;
}

/** An error that becomes an HTTP response with a Status body (or a watch ERROR event). */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: StatusBody['details'],
  ) {
    super(message);
    this.name = 'ApiError';
  }

  toStatus(): StatusBody {
    const body: StatusBody = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: this.message, reason: this.reason, code: this.code };
    return this.details === undefined ? body : { ...body, details: this.details };
  }
}

function resource(s: Subject): string {
  return s.group === '' ? s.plural : `${s.plural}.${s.group}`;
}

function details(s: Subject): NonNullable<StatusBody['details']> {
  return s.name === undefined ? { group: s.group, kind: s.plural } : { name: s.name, group: s.group, kind: s.plural };
}

export function notFound(s: Subject): ApiError {
  return new ApiError(404, 'NotFound', `${resource(s)} "${s.name ?? ''}" not found`, details(s));
}

export function alreadyExists(s: Subject): ApiError {
  return new ApiError(409, 'AlreadyExists', `${resource(s)} "${s.name ?? ''}" already exists`, details(s));
}

export function conflict(s: Subject, why: string): ApiError {
  return new ApiError(409, 'Conflict', `Operation cannot be fulfilled on ${resource(s)} "${s.name ?? ''}": ${why}`, details(s));
}

export function invalid(s: Subject, kind: string, causes: StatusCause[]): ApiError {
  const list = causes.map((c) => `${c.field}: ${c.message}`).join(', ');
  return new ApiError(422, 'Invalid', `${kind} "${s.name ?? ''}" is invalid: ${list}`, { ...details(s), kind, causes });
}

export function badRequest(message: string): ApiError {
  return new ApiError(400, 'BadRequest', message);
}

export function methodNotAllowed(message: string): ApiError {
  return new ApiError(405, 'MethodNotAllowed', message);
}

/** 410 Gone for a resourceVersion older than the event window, as the watch cache reports it. */
export function expired(message: string): ApiError {
  return new ApiError(410, 'Expired', message);
}

export function unsupportedMediaType(type: string): ApiError {
  return new ApiError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format: ${type}`);
}

export function tooLargeResourceVersion(asked: string, current: string): ApiError {
  return new ApiError(504, 'Timeout', `Too large resource version: ${asked}, current: ${current}`, {
    causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version', field: '' }],
  });
}
