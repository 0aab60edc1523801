// Typed traffic-policy settings: rate limits, CORS, mirroring, access/rewrite logs and canary routing.

/** Rate limits of one Ingress (ingress-nginx's limit-* annotations), shared by all its locations. */
export interface LimitSettings {
  readonly rps?: number;
  readonly rpm?: number;
  readonly connections?: number;
  /** Burst = rate × multiplier (default 5). */
  readonly burstMultiplier?: number;
  /** Client CIDRs never limited. */
  readonly whitelist?: readonly string[];
  /** Response rate per connection, in KiB/s. */
  readonly rate?: number;
  /** KiB sent before limit-rate applies. */
  readonly rateAfter?: number;
}

/** CORS as asked by the annotations; absent fields take ingress-nginx's defaults (CORS_DEFAULTS). */
export interface CorsSettings {
  readonly enabled?: boolean;
  /** `*`, or origins `scheme://host[:port]` whose host may start with `*.`. */
  readonly allowOrigin?: readonly string[];
  readonly allowMethods?: readonly string[];
  readonly allowHeaders?: readonly string[];
  readonly allowCredentials?: boolean;
  readonly exposeHeaders?: readonly string[];
  readonly maxAge?: number;
}

export type ResolvedCors = Required<Omit<CorsSettings, 'enabled'>>;

/** ingress-nginx's CORS defaults. */
export const CORS_DEFAULTS: ResolvedCors = Object.freeze({
  allowOrigin: ['*'],
  allowMethods: ['GET', 'PUT', 'POST', 'DELETE', 'PATCH', 'OPTIONS'],
  allowHeaders: ['DNT', 'Keep-Alive', 'User-Agent', 'X-Requested-With', 'If-Modified-Since', 'Cache-Control', 'Content-Type', 'Range', 'Authorization'],
  allowCredentials: true,
  exposeHeaders: [],
  maxAge: 1728000,
});

export interface MirrorSettings {
  /** An http(s) URL, optionally ending in `$request_uri`. */
  readonly target?: string;
  readonly requestBody?: boolean;
  /** Host header of mirrored requests (default: the target's host). */
  readonly host?: string;
}

/** The canary-* annotations of one Ingress; only meaningful with `canary: "true"`. */
export interface CanarySettings {
  readonly enabled?: boolean;
  readonly header?: string;
  readonly headerValue?: string;
  readonly headerPattern?: string;
  readonly cookie?: string;
  readonly weight?: number;
  readonly weightTotal?: number;
  /** affinity-canary-behavior `legacy` on the canary: its backend keeps its own affinity instead of the main backend's. */
  readonly legacyAffinity?: boolean;
}

/** The traffic policy (limits, CORS, mirroring, logs, canary) one Ingress asked for. */
export interface TrafficSettings {
  readonly limit?: LimitSettings;
  readonly cors?: CorsSettings;
  readonly mirror?: MirrorSettings;
  readonly accessLog?: boolean;
  readonly rewriteLog?: boolean;
  readonly canary?: CanarySettings;
}

/**
 * The canary policy the Lua balancer applies to a main backend (docs/adr/0001, docs/adr/0006): header, then cookie,
 * then weight decide whether a request goes to `backend` instead.
 */
export interface CanaryPolicy {
  readonly backend: string;
  readonly header: string;
  readonly headerValue: string;
  readonly headerPattern: string;
  readonly cookie: string;
  readonly weight: number;
  readonly weightTotal: number;
  /** The canary Ingress (the inspector's rows); never sent to Lua. */
  readonly ingress?: { readonly namespace: string; readonly name: string };
}

/** The global ConfigMap keys of the traffic half. */
export interface TrafficGlobals {
  readonly limitReqStatusCode: number;
  readonly limitConnStatusCode: number;
  readonly blockReferers: readonly string[];
}

export const TRAFFIC_GLOBAL_DEFAULTS: TrafficGlobals = Object.freeze({ limitReqStatusCode: 503, limitConnStatusCode: 503, blockReferers: [] });
