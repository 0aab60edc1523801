// The route table (docs/adr/0014) as an operator reads it: the hosts the catch-all server's Lua router serves, which
// have no server block in nginx.conf. Pure: the JSON pushed to /configuration/routes in, rows or text out.
import { table } from './tables.js';

/** One path of a routed host, as the router answers it. */
export interface RouteRow {
  /** The host as the model names it ('_' for the catch-all's own paths: any other host). */
  readonly host: string;
  readonly match: 'exact' | 'prefix';
  readonly path: string;
  /** namespace/name of the Ingress, when the table carries it (its metrics labels; '' with --enable-metrics=false). */
  readonly ingress: string;
  /** The upstream, or '' for the built-in 404. */
  readonly backend: string;
  /** What the router does: proxy, proxy in a named location (a profile), 404, a redirect to HTTPS, a 503. */
  readonly action: string;
}

interface Target {
  readonly backend?: unknown;
  readonly canary?: unknown;
  readonly redirect?: unknown;
  readonly denied?: unknown;
  readonly metrics?: unknown;
  readonly profile?: unknown;
}
/** A host's entry: its paths name targets by index, in its own `targets` or (an older table) the table's. */
interface HostEntry {
  readonly exact?: Readonly<Record<string, unknown>>;
  readonly prefix?: Readonly<Record<string, unknown>>;
  readonly targets?: readonly Target[];
}
interface Payload {
  readonly targets?: readonly Target[];
  readonly hosts?: Readonly<Record<string, HostEntry>>;
  readonly default?: HostEntry;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function actionOf(t: Target | undefined): string {
  if (t === undefined) return '(unknown target)';
  const parts: string[] = [];
  if (t.denied === true) return '503 (client-certificate errors)';
  if (typeof t.redirect === 'number' && t.redirect > 0) parts.push(`${t.redirect} to https on http`);
  const backend = str(t.backend);
  if (backend === '') parts.push('404');
  else parts.push(str(t.profile) === '' ? 'proxy' : `proxy in ${str(t.profile)}`);
  if (str(t.canary) !== '') parts.push('canary');
  return parts.join(', ');
}

/** A target's INGRESS, BACKEND and ACTION cells. */
function targetCells(t: Target | undefined): [string, string, string] {
  const labels = str(t?.metrics).split('|');
  return [labels.length >= 2 && labels[1] !== '' ? `${labels[0]}/${labels[1]}` : '', str(t?.backend), actionOf(t)];
}

const byPathThenMatch = (a: { path: string; match: string }, b: { path: string; match: string }): number =>
  a.path < b.path ? -1 : a.path > b.path ? 1 : a.match < b.match ? -1 : a.match > b.match ? 1 : 0;

/** One host's rows, sorted by path (then match); each target's cells made once however many paths name it. */
function rowsOf(host: string, entry: HostEntry | undefined, shared: readonly Target[]): RouteRow[] {
  const rows: RouteRow[] = [];
  const targets = entry?.targets ?? shared;
  const cells = new Map<unknown, [string, string, string]>();
  for (const match of ['exact', 'prefix'] as const) {
    const paths = entry?.[match] ?? {};
    for (const path in paths) {
      const i = paths[path];
      let c = cells.get(i);
      if (c === undefined) {
        c = targetCells(typeof i === 'number' ? targets[i] : undefined);
        cells.set(i, c);
      }
      rows.push({ host, match, path, ingress: c[0], backend: c[1], action: c[2] });
    }
  }
  return rows.sort(byPathThenMatch);
}

/** The table's rows, hosts sorted, the catch-all's ('_') last; [] for '' (no table: --enable-dynamic-routes=false). */
export function routeRows(routes: string): RouteRow[] {
  if (routes === '') return [];
  const p = JSON.parse(routes) as Payload;
  const targets = p.targets ?? [];
  const rows: RouteRow[] = [];
  for (const h of Object.keys(p.hosts ?? {}).sort()) for (const r of rowsOf(h, p.hosts?.[h], targets)) rows.push(r);
  for (const r of rowsOf('_', p.default, targets)) rows.push(r);
  return rows;
}

/** A cell that cannot end the comment line it is printed in (paths and hosts are validated; this is belt and braces). */
const cell = (s: string): string => (/[\r\n]/.test(s) ? JSON.stringify(s) : s);

const HEADER = ['HOST', 'MATCH', 'PATH', 'INGRESS', 'BACKEND', 'ACTION'] as const;

/**
 * The table as nginx comment lines, to print after nginx.conf (/debug/config, `portico config --raw`, `portico
 * render`): the text stays a valid nginx.conf, and a routed host is as visible as one with a server block.
 */
export function routeTableComment(routes: string): string {
  if (routes === '') return '';
  const rows = routeRows(routes);
  let hosts = 0;
  let last = '';
  const grid = rows.map((r) => {
    if (r.host !== '_' && r.host !== last) hosts += 1;
    last = r.host;
    return [r.host === '_' ? '*' : r.host, r.match, r.path, r.ingress, r.backend, r.action].map(cell);
  });
  return [
    '',
    `# Route table (--enable-dynamic-routes, docs/adr/0014): ${hosts} host${hosts === 1 ? '' : 's'} without a server block above.`,
    '# The catch-all server (server_name _) routes them in Lua with this table, pushed to /configuration/routes:',
    '# adding or removing one of these hosts, paths or Ingresses is a push, not a reload. "*" is any other host.',
    '# The JSON as pushed: /debug/routes on the health port.',
    '#',
    table(HEADER, grid, '# '),
    '',
  ].join('\n');
}

/** nginx.conf with the route table after it (unchanged when there is no table). */
export function withRouteTable(conf: string, routes: string): string {
  return routes === '' ? conf : `${conf.replace(/\n*$/, '\n')}${routeTableComment(routes)}`;
}
