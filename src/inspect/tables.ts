// Readable tables of the inspector's state (`portico backends|config|certs|status`). Pure: state in, text out.
import type { State } from './state.js';

/**
 * Left-aligned columns, two spaces apart, a header row; '-' for empty cells; each line after `prefix` (route-table.ts
 * prints the table as nginx.conf comments). One pass for the widths, one for the lines: the route table of 10,000 hosts
 * has 50,000 rows.
 */
export function table(header: readonly string[], rows: readonly (readonly string[])[], prefix = ''): string {
  const shown = (c: string | undefined): string => (c === undefined || c === '' ? '-' : c);
  const widths = header.map((h) => h.length);
  for (const r of rows) {
    for (let i = 0; i < header.length; i++) {
      const n = r[i] === undefined ? 0 : shown(r[i]).length;
      if (n > (widths[i] ?? 0)) widths[i] = n;
    }
  }
  const line = (r: readonly string[]): string => {
    let out = prefix;
    for (let i = 0; i < r.length; i++) out += i === r.length - 1 ? shown(r[i]) : `${shown(r[i]).padEnd(widths[i] ?? 0)}  `;
    return out;
  };
  const lines = [line(header)];
  for (const r of rows) lines.push(line(r));
  return lines.join('\n');
}

const endpointsCell = (eps: State['routes'][number]['paths'][number]['endpoints'], none: string): string =>
  eps.length === 0 ? none : eps.map((e) => `${e.address}${e.port === null ? '' : `:${e.port}`} ${e.state}${e.inRotation ? '' : ' (out of rotation)'}`).join(', ');

/** A canary row's service: its own, then when it takes requests. */
const serviceCell = (p: { service: string; canary?: string }): string => (p.canary === undefined ? p.service : `${p.service} (canary: ${p.canary})`);

/** hosts → paths → backends (canaries after their main path) → endpoints with their state; then the TCP/UDP ports. */
export function backendsTable(s: State): string {
  const rows: string[][] = [];
  for (const r of s.routes) {
    for (const p of r.paths) {
      rows.push([r.host === '_' ? '*' : r.host, `${p.match === 'exact' ? '= ' : p.match === 'regex' ? '~ ' : ''}${p.path}`, p.ingress, serviceCell(p), endpointsCell(p.endpoints, 'none (503)')]);
    }
  }
  const http = table(['HOST', 'PATH', 'INGRESS', 'SERVICE', 'ENDPOINTS'], rows);
  const stream = s.stream ?? [];
  if (stream.length === 0) return http;
  const ports = table(
    ['PORT', 'SERVICE', 'FROM', 'ENDPOINTS'],
    stream.map((t) => [`${t.port}/${t.protocol}`, t.service, t.source, endpointsCell(t.endpoints, 'none (connections closed)')]),
  );
  return `${http}\n\n${ports}`;
}

/** Certificates with hosts, issuer and expiry in days. */
export function certsTable(s: State): string {
  return table(
    ['HOST', 'SECRET', 'ISSUER', 'EXPIRES', 'DAYS LEFT'],
    s.certificates.map((c) => [c.host, c.secret ?? '(default certificate)', c.issuer, c.notAfter, Number.isFinite(c.daysLeft) ? String(c.daysLeft) : '']),
  );
}

const causes = (c: Readonly<Record<string, number>>): string =>
  Object.entries(c)
    .map(([k, v]) => (v > 1 ? `${k}x${v}` : k))
    .join(',');

/** Health, the last syncs with plan and cause, and the current Warnings. */
export function statusText(s: State): string {
  const health = s.stopping ? 'stopping' : s.healthy ? 'healthy' : 'NOT READY';
  const parts = [
    `health: ${health}   nginx restarts: ${s.nginx.restarts}   hosts: ${s.routes.length}   as of ${s.generatedAt}`,
    '',
    'LAST SYNCS',
    table(
      ['STARTED', 'PLAN', 'MS', 'CAUSE'],
      s.syncs.map((r) => [r.at, r.plan, String(r.ms), causes(r.causes) + (r.error ? ` (${r.error})` : '')]),
    ),
    '',
    `WARNINGS (${s.warnings.length})`,
    s.warnings.length === 0
      ? 'none'
      : table(
          ['OBJECT', 'FIELD', 'SEVERITY', 'REASON'],
          s.warnings.map((w) => [w.object, w.field, w.severity, w.reason]),
        ),
  ];
  return parts.join('\n');
}

/**
 * The hosts with their paths, the Ingress each comes from, and what serves the host: its server block in nginx.conf,
 * or the Lua route table (docs/adr/0014). The shape, not nginx.conf: `--raw` prints that, the route table after it.
 */
export function configTable(s: State): string {
  const rows = s.routes.flatMap((r) => r.paths.map((p) => [r.host === '_' ? '*' : r.host, p.match, p.path, p.ingress, p.canary === undefined ? p.backend : `${p.backend} (canary)`, r.servedBy]));
  return table(['HOST', 'MATCH', 'PATH', 'INGRESS', 'BACKEND', 'SERVED BY'], rows);
}
