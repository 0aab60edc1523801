// The route table as first written (one `route` scan per location, quadratic): the reference the compiled table must equal.
import { locationsBy, route, type PathRule } from '../../src/model/routes.js';
import type { Location, Target } from '../../src/model/types.js';

/**
 * the quadratic reference compileLocations: the same locations, each asking the reference matcher `route`,
 * which scans every rule, so n rules cost n² steps (10,000 paths 3.5 s, 100,000 paths 374 s). Tests compare the
 * real compiler with it whole; bench/routes.ts times it as the "before" side.
 */
export function compileLocationsQuadratic(tiers: readonly (readonly PathRule[])[], fallback: Target): Location[] {
  return locationsBy(tiers, fallback, (uri, prefixOnly) => route(tiers, uri, prefixOnly));
}
