// The Gateway API route table of the model (docs/adr/0011): per nginx location, the HTTPRoute matches that may take
// its requests, sorted by the specification's precedence, each with what to do; Lua walks it (lua/portico/gateway.lua).
import type { ObjectRef } from '../types.js';

/** A header or query parameter condition. Header names are lower-cased (compared case-insensitively); query names are kept. */
export interface GatewayCondition {
  readonly name: string;
  readonly type: 'Exact' | 'RegularExpression';
  readonly value: string;
}

/** One HTTPRoute match, validated: a path (always), and the conditions ANDed with it. */
export interface GatewayMatch {
  readonly path: { readonly type: 'Exact' | 'PathPrefix' | 'RegularExpression'; readonly value: string };
  readonly headers: readonly GatewayCondition[];
  readonly query: readonly GatewayCondition[];
  /** An HTTP method, upper case. */
  readonly method?: string;
  /**
   * `https`: the route reaches this host through HTTPS listeners only, so a plain HTTP request (port 80 serves every
   * host) never reaches it. Not a field of HTTPRoute: set by model/gateway/translate.ts from the listeners.
   */
  readonly scheme?: 'https';
  /**
   * The local ports (nginx's `$server_port`) the match is served on, when the route does not reach its host through
   * every listen socket: nginx serves every host on every port, so Lua skips it on the others
   * (model/gateway/port-scope.ts). Not a field of HTTPRoute.
   */
  readonly ports?: readonly number[];
  /**
   * `.example.com`: the match of a `*.example.com` route served for names of two or more labels there, from another
   * server (model/gateway/deep-wildcards.ts); Lua takes it only when `$host` ends with it.
   */
  readonly hostSuffix?: string;
  /**
   * Listener isolation (model/gateway/isolation.ts): the hostnames of the more specific listeners of the Gateway the
   * route attached through; Lua skips the match when `$host` matches one. Not a field of HTTPRoute.
   */
  readonly exceptHosts?: readonly string[];
}

export interface GatewayHeader {
  readonly name: string;
  readonly value: string;
}

/** RequestHeaderModifier / ResponseHeaderModifier: set replaces, add appends (comma-joined), remove drops. */
export interface HeaderEdits {
  readonly set: readonly GatewayHeader[];
  readonly add: readonly GatewayHeader[];
  readonly remove: readonly string[];
}

/** ReplaceFullPath: the whole path; ReplacePrefixMatch: the matched PathPrefix replaced (the candidate's path). */
export interface PathEdit {
  readonly type: 'ReplaceFullPath' | 'ReplacePrefixMatch';
  readonly value: string;
}

/** One weighted backend of a rule: an upstream, or none (a backendRef that is invalid: its share answers 500). */
export interface WeightedBackend {
  readonly upstream?: string;
  readonly weight: number;
  /** The backendRef's own RequestHeaderModifier / ResponseHeaderModifier, applied after the rule's. */
  readonly requestHeaders?: HeaderEdits;
  readonly responseHeaders?: HeaderEdits;
  /** The backendRef's own URLRewrite or RequestRedirect (the rule has none of either). */
  readonly rewrite?: GatewayAction['rewrite'];
  readonly redirect?: GatewayAction['redirect'];
}

/** The CORS filter: origins lower-cased (`*` any, `https://*.example.com` any names below), `*` alone in a list: any. */
export interface CorsPolicy {
  readonly origins: readonly string[];
  readonly methods: readonly string[];
  readonly headers: readonly string[];
  readonly expose: readonly string[];
  readonly maxAge: number;
  readonly credentials: boolean;
}

/** What one rule of one HTTPRoute does with a request it takes: data for Lua, never nginx.conf text. */
export interface GatewayAction {
  readonly route: ObjectRef;
  /** `spec.rules[i]`. */
  readonly rule: number;
  /** Weight > 0 only; empty: every request answers 500 (no backend, all weights zero). */
  readonly backends: readonly WeightedBackend[];
  /** The rule lists several backendRefs: Lua picks by weight, so weight changes stay dynamic (no reload). */
  readonly weighted?: true;
  readonly requestHeaders?: HeaderEdits;
  readonly responseHeaders?: HeaderEdits;
  readonly redirect?: { readonly scheme?: 'http' | 'https'; readonly hostname?: string; readonly port?: number; readonly statusCode: number; readonly path?: PathEdit };
  readonly rewrite?: { readonly hostname?: string; readonly path?: PathEdit };
  /** RequestMirror: the upstream that gets a copy of each request (responses ignored). */
  readonly mirror?: string;
  /** RequestMirror `percent` / `fraction` as a percentage below 100: Lua copies that share of requests. */
  readonly mirrorPercent?: number;
  /** The rule's further RequestMirror filters, in order (`mirror` is the first): render/gateway.ts gives each its own subrequest. */
  readonly moreMirrors?: readonly { readonly upstream: string; readonly percent?: number }[];
  /** timeouts.backendRequest, else timeouts.request, in milliseconds: each try's connect, send and read timeouts. */
  readonly timeoutMs?: number;
  /** timeouts.request in milliseconds: one deadline from the request's start across every try (docs/adr/0026). */
  readonly deadlineMs?: number;
  /** HTTPRoute `retry`: the codes (besides connection errors and timeouts) and the retries (docs/adr/0026). */
  readonly retry?: { readonly codes: readonly number[]; readonly attempts: number };
  /** The CORS filter: Lua answers preflights and adds the response headers. */
  readonly cors?: CorsPolicy;
  /**
   * What a share without a valid backend answers, when not 500: 503 for a GRPCRoute, which gRPC clients read as
   * UNAVAILABLE (the GRPCRoute specification's status for an invalid backendRef; a 500 reads as UNKNOWN).
   */
  readonly failStatus?: 503;
  /** A GRPCRoute's rule: its location passes with grpc_pass over h2c (render/gateway.ts), never HTTP/1.1. */
  readonly grpc?: true;
}

/** One match of one rule in a location's list: Lua takes the first whose conditions all hold. */
export interface GatewayCandidate {
  readonly match: GatewayMatch;
  /** Index into GatewayTable.actions. */
  readonly action: number;
}

/** The route table: the actions, and the candidates of each location that needs Lua, by the location's key. */
export interface GatewayTable {
  readonly actions: readonly GatewayAction[];
  readonly locations: Readonly<Record<string, readonly GatewayCandidate[]>>;
  /** Local port → Gateway listener port, off the traffic ports: the port a RequestRedirect without one keeps. */
  readonly listenerPorts?: Readonly<Record<string, number>>;
}

/** One match of one rule of one attached route on one host, as translation made it (before locations exist). */
export interface GatewayEntry {
  /** '' = no host (every host), else an exact or `*.` host. */
  readonly host: string;
  readonly match: GatewayMatch;
  readonly action: GatewayAction;
  /** Oldest route first (then namespace/name), then rule index, then match index: the specification's last tie-breaks. */
  readonly order: readonly [number, number, number];
}

/** True when a match has nothing but an Exact or PathPrefix path: nginx's location choice alone decides it. */
export function pathOnly(m: GatewayMatch): boolean {
  return (
    m.path.type !== 'RegularExpression' &&
    m.headers.length === 0 &&
    m.query.length === 0 &&
    m.method === undefined &&
    m.scheme === undefined &&
    m.ports === undefined &&
    m.hostSuffix === undefined &&
    m.exceptHosts === undefined
  );
}

/** True when an action is one backend and nothing else: the location proxies to it without Lua. */
export function plainAction(a: GatewayAction): boolean {
  return (
    a.weighted === undefined &&
    a.backends.length === 1 &&
    a.backends[0]?.upstream !== undefined &&
    a.backends[0].requestHeaders === undefined &&
    a.backends[0].responseHeaders === undefined &&
    a.backends[0].rewrite === undefined &&
    a.backends[0].redirect === undefined &&
    a.retry === undefined &&
    a.deadlineMs === undefined &&
    a.cors === undefined &&
    a.requestHeaders === undefined &&
    a.responseHeaders === undefined &&
    a.redirect === undefined &&
    a.rewrite === undefined &&
    a.mirror === undefined &&
    a.timeoutMs === undefined &&
    a.failStatus === undefined
  );
}
