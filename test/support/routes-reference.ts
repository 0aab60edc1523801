// The route table as first written (one `route` scan per location, quadratic): the reference the compiled table must equal.
import { route, type PathRule } from '../../src/model/routes.js';
import type { Location, Target } from '../../src/model/types.js';

/**
 * compileLocations before issue 13, verbatim but for the name: every location asks the reference matcher `route`,
 * which scans every rule, so n rules cost n² steps (10,000 paths 3.5 s, 100,000 paths 374 s). Tests compare the
 * real compiler with it whole; bench/routes.ts times it as the "before" side.
 */
export function compileLocationsQuadratic(tiers: readonly (readonly PathRule[])[], fallback: Target): Location[] {
  const exact = new Set<string>();
  const prefix = new Set<string>(['/']);
  for (const rule of tiers.flat()) {
    if (rule.type === 'Exact') {
      exact.add(rule.path);
      if (rule.path.length > 1 && rule.path.endsWith('/')) exact.add(rule.path.slice(0, -1));
    } else if (rule.path !== '/') {
      exact.add(rule.path);
      prefix.add(`${rule.path}/`);
    }
  }
  const locations: Location[] = [];
  for (const path of [...exact].sort()) {
    locations.push({ match: 'exact', path, target: route(tiers, path) ?? fallback });
  }
  for (const path of [...prefix].sort()) {
    locations.push({ match: 'prefix', path, target: route(tiers, path, true) ?? fallback });
  }
  return locations;
}
