// The inventory of the Gateway API conformance suite (inventory.json): every upstream test (ShortName), its features,
// its status in Portico and the Portico test that reproduces it; builds the report in upstream's ConformanceReport
// shape and the conformance section of docs/gateway-api.md.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';

export const STATUSES = ['passes', 'skipped', 'failed', 'not-yet-written'] as const;
export type Status = (typeof STATUSES)[number];

export interface Row {
  readonly shortName: string;
  /** The upstream file (conformance/tests/<file>). */
  readonly file: string;
  /** The test's Features, as upstream lists them. */
  readonly features: readonly string[];
  /** Upstream marks the test provisional. */
  readonly provisional?: boolean;
  readonly status: Status;
  /** Why a row is skipped. */
  readonly reason?: string;
  /** The defect that makes a row fail. */
  readonly defect?: string;
  /** The Portico test file (repository path) holding a test named exactly `shortName`. */
  readonly test?: string;
}

export interface Profile {
  readonly core: readonly string[];
  readonly extended: readonly string[];
}

export interface Inventory {
  readonly upstream: { readonly repository: string; readonly tag: string; readonly commit: string; readonly folder: string };
  /** The date the statuses were last recorded (the report's `date`). */
  readonly date: string;
  readonly profiles: Readonly<Record<string, Profile>>;
  /** Features Portico does not claim, with why. */
  readonly unsupportedFeatures: Readonly<Record<string, string>>;
  readonly rows: readonly Row[];
}

export const INVENTORY = 'test/gateway-conformance/inventory.json';

export function loadInventory(repo: string): Inventory {
  return JSON.parse(readFileSync(join(repo, INVENTORY), 'utf8')) as Inventory;
}

/** The profiles a test counts in: those whose core and extended features hold all of its features (upstream's rule). */
export function profilesOf(inv: Inventory, row: Row): string[] {
  return Object.entries(inv.profiles)
    .filter(([, p]) => row.features.every((f) => p.core.includes(f) || p.extended.includes(f)))
    .map(([name]) => name)
    .sort();
}

/** A test is extended in a profile when any of its features is not one of the profile's core features. */
export function isExtended(p: Profile, row: Row): boolean {
  return row.features.some((f) => !p.core.includes(f));
}

interface Status_ {
  result: 'success' | 'partial' | 'failure';
  statistics: { Passed: number; Skipped: number; Failed: number };
  skippedTests?: string[];
  failedTests?: string[];
}

function status(rows: readonly Row[]): Status_ {
  // A test not written yet is not run: upstream reports a test it does not run as skipped.
  const skipped = rows.filter((r) => r.status === 'skipped' || r.status === 'not-yet-written').map((r) => r.shortName);
  const failed = rows.filter((r) => r.status === 'failed').map((r) => r.shortName);
  const passed = rows.filter((r) => r.status === 'passes').length;
  const result = failed.length > 0 ? 'failure' : skipped.length > 0 ? 'partial' : 'success';
  return {
    result,
    statistics: { Passed: passed, Skipped: skipped.length, Failed: failed.length },
    ...(skipped.length > 0 ? { skippedTests: skipped.sort() } : {}),
    ...(failed.length > 0 ? { failedTests: failed.sort() } : {}),
  };
}

function summary(core: Status_, extended: Status_ | undefined): string {
  const one = (s: Status_): string =>
    s.result === 'success' ? 'succeeded' : s.result === 'partial' ? `partially succeeded with ${s.statistics.Skipped} test skips` : `failed with ${s.statistics.Failed} test failures`;
  return `Core tests ${one(core)}${extended === undefined ? '' : `. Extended tests ${one(extended)}`}.`;
}

/** The report in upstream's ConformanceReport shape (conformance/apis/v1), as a plain object. */
export function report(inv: Inventory, version: string): Record<string, unknown> {
  const profiles = Object.entries(inv.profiles)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, p]) => {
      const rows = inv.rows.filter((r) => profilesOf(inv, r).includes(name));
      const core = status(rows.filter((r) => !isExtended(p, r)));
      const extRows = rows.filter((r) => isExtended(p, r));
      const extended = extRows.length === 0 ? undefined : status(extRows);
      const supported = p.extended.filter((f) => inv.unsupportedFeatures[f] === undefined);
      const unsupported = p.extended.filter((f) => inv.unsupportedFeatures[f] !== undefined);
      return {
        name,
        summary: summary(core, extended),
        core,
        ...(extended === undefined
          ? {}
          : { extended: { ...extended, ...(supported.length > 0 ? { supportedFeatures: supported } : {}), ...(unsupported.length > 0 ? { unsupportedFeatures: unsupported } : {}) } }),
      };
    });
  const provisional = inv.rows.filter((r) => r.provisional === true && r.status === 'passes').map((r) => r.shortName);
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'ConformanceReport',
    implementation: { organization: 'portico', project: 'portico', url: 'https://portico.dev', version, contact: ['the Portico maintainers (README.md)'] },
    date: inv.date,
    gatewayAPIVersion: inv.upstream.tag,
    mode: 'default',
    gatewayAPIChannel: 'standard',
    profiles,
    ...(provisional.length > 0 ? { succeededProvisionalTests: provisional.sort() } : {}),
  };
}

/** The YAML text of the report. */
export function reportYaml(inv: Inventory, version: string): string {
  return stringify(report(inv, version), { lineWidth: 0 });
}
