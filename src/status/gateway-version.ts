// GatewayClass SupportedVersion: which Gateway API CRD releases Portico supports (docs/adr/0025-gateway-api-version-pin.md).
//
// Pure: reads the bundle-version and channel annotations already fetched (kube/gateway-crds.ts).
import { GATEWAY_GROUP } from '../model/gateway/api.js';
import type { Outcome } from '../model/gateway/listeners.js';

/** The Gateway API release Portico is built and tested against; deploy/gateway-api/ ships its standard channel. */
export const PINNED_RELEASE = 'v1.6.1';
/** Every patch release of this minor version is supported (patch releases change no API: the Gateway API versioning policy). */
const PINNED_MINOR = 6;

/** The annotations of one installed CRD; undefined in the map when the CRD is not installed. */
export interface CrdBundle {
  /** `gateway.networking.k8s.io/bundle-version`, e.g. v1.6.1. */
  readonly version: string | undefined;
  /** `gateway.networking.k8s.io/channel`: standard or experimental. */
  readonly channel: string | undefined;
}

/** What SupportedVersion is computed from: the CRDs read, and --gateway-api-experimental-features. */
export interface BundleReading {
  readonly crds: ReadonlyMap<string, CrdBundle | undefined>;
  readonly experimental: boolean;
}

const crdName = (plural: string): string => `${plural}.${GATEWAY_GROUP}`;

/** CRDs that must be installed: without them Portico serves no Gateway at all. */
const REQUIRED_CRD_NAMES = ['gatewayclasses', 'gateways', 'httproutes', 'referencegrants'].map(crdName);
/** CRDs of the standard channel that may be missing (a cluster on an older release has none of the newer kinds). */
const OPTIONAL_CRD_NAMES = ['grpcroutes', 'tlsroutes', 'tcproutes', 'udproutes', 'backendtlspolicies', 'listenersets'].map(crdName);
/** Every CRD whose annotations are read. */
export const GATEWAY_CRD_NAMES = [...REQUIRED_CRD_NAMES, ...OPTIONAL_CRD_NAMES];

const FIX = `apply deploy/gateway-api/ (or upstream's standard-install.yaml of ${PINNED_RELEASE})`;

/** Why one CRD's release is not supported, or undefined when it is. */
function unsupported(name: string, crd: CrdBundle, experimental: boolean): string | undefined {
  const v = crd.version;
  if (v === undefined) return `CRD ${name}: no gateway.networking.k8s.io/bundle-version annotation`;
  const m = /^v1\.(\d+)\.\d+$/.exec(v);
  const minor = m ? Number(m[1]) : undefined;
  if (minor === undefined) return `CRD ${name}: bundle version ${v} is not a Gateway API v1 release; Portico supports v1.${PINNED_MINOR}.x (${FIX})`;
  if (minor < PINNED_MINOR) return `CRD ${name}: bundle version ${v} is older than the v1.${PINNED_MINOR} Portico pins; it is served best effort (fields of later releases are absent): ${FIX}`;
  if (minor > PINNED_MINOR) return `CRD ${name}: bundle version ${v} is newer than the v1.${PINNED_MINOR} Portico pins; it is served best effort (fields added since are not read)`;
  if ((crd.channel ?? 'standard') !== 'standard' && !experimental)
    return `CRD ${name}: channel ${crd.channel ?? ''}; Portico reads the standard channel (experimental-channel CRDs are accepted with --gateway-api-experimental-features)`;
  return undefined;
}

/**
 * SupportedVersion of Portico's GatewayClasses. True for v1.6.x of the standard channel (the experimental channel too
 * with --gateway-api-experimental-features); False UnsupportedVersion for a missing required CRD, a CRD without the
 * annotation, and any other release, older or newer. False never stops service: Accepted stays True and Portico
 * serves what it can read ("best effort", as the specification allows), so an upgrade is never a silent outage.
 */
export function supportedVersion(reading: BundleReading): Outcome {
  const seen: string[] = [];
  for (const name of GATEWAY_CRD_NAMES) {
    const crd = reading.crds.get(name);
    if (crd === undefined) {
      if (REQUIRED_CRD_NAMES.includes(name)) return [false, 'UnsupportedVersion', `CRD ${name}: not installed (${FIX})`];
      continue;
    }
    const why = unsupported(name, crd, reading.experimental);
    if (why !== undefined) return [false, 'UnsupportedVersion', why];
    const label = `${crd.version ?? ''}${(crd.channel ?? 'standard') === 'standard' ? '' : ` (${crd.channel ?? ''})`}`;
    if (!seen.includes(label)) seen.push(label);
  }
  return [true, 'SupportedVersion', `Gateway API CRD bundle version ${seen.join(', ')} is supported (Portico pins ${PINNED_RELEASE})`];
}
