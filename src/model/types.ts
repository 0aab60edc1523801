// The model: what nginx must do, as plain data. No Kubernetes API types, no annotation modules.
import type { TlsModel } from './tls-types.js';
import type { Affinity, LocationSettings, ServerSettings } from './settings.js';
import type { CanaryPolicy } from './settings-traffic.js';
import type { StreamModel } from './stream.js';
import type { GatewayTable } from './gateway/route-types.js';
import type { ExtraPorts } from './gateway/listener-ports.js';
import type { MisdirectTable } from './gateway/misdirected.js';

/** Reference to the object a piece of the model came from, for logs and Events. */
export interface ObjectRef {
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
}

/** One address a backend sends traffic to. */
export interface Endpoint {
  readonly address: string;
  readonly port: number;
}

/** One service port: the unit the Lua balancer picks peers in. */
export interface Upstream {
  /** `namespace_service_port`, unique and made only of [a-z0-9_-]. */
  readonly name: string;
  readonly service: ObjectRef;
  readonly servicePort: number;
  /** Ready endpoints, or serving-but-terminating ones when no endpoint is ready. */
  readonly endpoints: readonly Endpoint[];
  readonly loadBalance: 'round_robin' | 'ewma';
  /** Consistent-hash key (an nginx variable expression), or '' for none. */
  readonly hashBy: string;
  /** With hashBy: endpoints per subset (upstream-hash-by-subset); absent: the hash picks one endpoint. */
  readonly hashSubset?: number;
  /** Cookie affinity, or null. Precedence in the balancer: affinity, then hashBy, then loadBalance. */
  readonly affinity: Affinity | null;
  /** An Ingress set a balancing annotation for it: its locations keep every Lua hook, so switching algorithms stays dynamic. */
  readonly tuned: boolean;
  /** service-upstream: the one endpoint is the Service's cluster IP, not its pods. */
  readonly serviceUpstream?: boolean;
  /** An ExternalName Service's name: the endpoints are the addresses it resolved to (model/external-names.ts). */
  readonly externalName?: string;
  /** Canary policies by route key: requests the Lua balancer may send to another backend instead (docs/adr/0006). */
  readonly canary?: Readonly<Record<string, CanaryPolicy>>;
}

/** Where a matched request goes. */
export type Target =
  | {
      readonly kind: 'upstream';
      readonly upstream: string;
      readonly ingress: ObjectRef;
      /** What the Ingress's annotations asked for its paths; absent: the global settings. */
      readonly settings?: LocationSettings;
      /** The Ingress path this target came from (rewrite-target rewrites from it). */
      readonly rule?: { readonly path: string; readonly regex: boolean };
      /** Route key of a path with a canary: the policy under this key in the backend's `canary` applies (docs/adr/0006). */
      readonly canary?: string;
    }
  | { readonly kind: 'not-found' };

/** One nginx location: `= path` (exact), `path` (prefix, ending in '/' unless it is '/'), or `~* "^path"` (use-regex). */
export interface Location {
  readonly match: 'exact' | 'prefix' | 'regex';
  readonly path: string;
  readonly target: Target;
  /** Key of this location's candidates in Model.gateway (HTTPRoute matches Lua decides, docs/adr/0011); absent: nginx alone. */
  readonly gateway?: string;
  /** A 404 location with candidates: the backend TLS (BackendTLSPolicy) it proxies with when one takes a request. */
  readonly backendTls?: LocationSettings;
}

/** One virtual host. `host` is an exact name, `*.suffix` (one label), or '_' for every other host. */
export interface Server {
  readonly host: string;
  readonly locations: readonly Location[];
  /** Server annotations of the oldest Ingress of the host that set each one. */
  readonly settings?: ServerSettings;
}

/** What kind of problem it is: the Event reason a user filters on (kubectl get events --field-selector reason=...). */
export type ProblemCode = 'PathConflict' | 'HostConflict' | 'ServiceNotFound' | 'ServicePortNotFound' | 'SecretProblem' | 'EndpointRefused' | 'ExternalNameUnresolved';

/** A problem's text, with its code where the kind is one of ProblemCode's. */
export type Reason = string | { readonly code: ProblemCode; readonly text: string };

/** How the parts of the model report a problem (the builder collects them). */
export type AddProblem = (object: ObjectRef, field: string, reason: Reason, severity?: Problem['severity']) => void;

/** Why an object, or a part of one, was left out of the model. */
export interface Problem {
  readonly object: ObjectRef;
  readonly field: string;
  readonly reason: string;
  readonly code?: ProblemCode;
  /** 'dropped': left out; 'degraded': served, but not as asked (e.g. 503 for a missing Service). */
  readonly severity: 'dropped' | 'degraded';
}

export interface Model {
  readonly servers: readonly Server[];
  readonly upstreams: readonly Upstream[];
  /** Ingresses (namespace/name) that the model serves, for status and Events. */
  readonly ingresses: readonly ObjectRef[];
  readonly problems: readonly Problem[];
  /** Certificates, redirects, HSTS and client auth (model/tls.ts). */
  readonly tls: TlsModel;
  /** TCP/UDP services and ssl-passthrough hosts (model/stream.ts); absent when none is configured. */
  readonly stream?: StreamModel;
  /** The Gateway API route table Lua walks (model/gateway/table.ts); absent when no location needs it. */
  readonly gateway?: GatewayTable;
  /** Local ports of Gateway listeners besides --http-port and --https-port: more listen sockets of every server. */
  readonly gatewayPorts?: ExtraPorts;
  /** The HTTPS listeners whose misdirected requests answer 421 (model/gateway/misdirected.ts); absent: no check. */
  readonly misdirect?: MisdirectTable;
}
