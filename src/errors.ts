// The one error base class of Portico and the catalogue of its stable codes.

/** Stable error codes. Each says what was wrong; the message says what to do. */
export const ErrorCodes = {
  BAD_FLAG: 'PORTICO_BAD_FLAG',
  BAD_MANIFEST: 'PORTICO_BAD_MANIFEST',
  BAD_OBJECT: 'PORTICO_BAD_OBJECT',
  UNSAFE_VALUE: 'PORTICO_UNSAFE_VALUE',
  NGINX_TEST_FAILED: 'PORTICO_NGINX_TEST_FAILED',
  NGINX_START_FAILED: 'PORTICO_NGINX_START_FAILED',
  /** One of Portico's ports is in use or may not be bound: Portico exits at start (controller/ports.ts). */
  PORT_UNAVAILABLE: 'PORTICO_PORT_UNAVAILABLE',
  NGINX_CONFIG_PUSH_FAILED: 'PORTICO_NGINX_CONFIG_PUSH_FAILED',
  API_UNREACHABLE: 'PORTICO_API_UNREACHABLE',
  TLS_SETUP_FAILED: 'PORTICO_TLS_SETUP_FAILED',
} as const;

export type ErrorCode = (typeof ErrorCodes)[keyof typeof ErrorCodes];

/** Base class for every error Portico raises on purpose. */
export class PorticoError extends Error {
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PorticoError';
    this.code = code;
  }
}

/** Flag or ConfigMap value that cannot be used. */
export class ConfigError extends PorticoError {
  constructor(message: string) {
    super(ErrorCodes.BAD_FLAG, message);
    this.name = 'ConfigError';
  }
}

/** A value that would have reached nginx.conf unescaped: a bug in validation, never printed into the config. */
export class UnsafeValueError extends PorticoError {
  constructor(message: string) {
    super(ErrorCodes.UNSAFE_VALUE, message);
    this.name = 'UnsafeValueError';
  }
}

/**
 * `nginx -t` refused a candidate configuration; the message carries nginx's own words. `beside`: the test ran beside
 * the reload (docs/adr/0053), so the culprit is found by the next sync's test, not this one's.
 */
export class NginxTestError extends PorticoError {
  constructor(
    message: string,
    readonly beside = false,
  ) {
    super(ErrorCodes.NGINX_TEST_FAILED, message);
    this.name = 'NginxTestError';
  }
}

/** nginx answered a configuration POST with a status other than 2xx: `status` says which (409: a delta's base is not held). */
export class PushRejectedError extends PorticoError {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(ErrorCodes.NGINX_CONFIG_PUSH_FAILED, message);
    this.name = 'PushRejectedError';
  }
}

/** The build worker raised an error for a build (e.g. the renderer refusing a value); the message is the worker's. */
export class BuildError extends Error {}

/** Message of any thrown value, for logs. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
