// `portico backends|config|certs|status|gateway [--url URL] [--json]`: reads a running instance's health port and prints tables.
import { parseArgs } from 'node:util';
import { errorMessage } from '../errors.js';
import { flagError } from '../config/suggest.js';
import { INSPECT_COMMANDS } from '../config/flags.js';
import type { State } from './state.js';
import { backendsTable, certsTable, configTable, statusText } from './tables.js';
import { gatewayTables, type GatewayDoc } from './gateway.js';

export type InspectCommand = (typeof INSPECT_COMMANDS)[number];

const USAGE = `usage: portico backends|config|certs|status|gateway [--url http://HOST:PORT] [--json] [--raw]
  --url   the health port of a running Portico (default http://127.0.0.1:10254); /debug/* answers loopback only
          unless that Portico runs with --debug-remote-access (or use kubectl port-forward)
  --json  the same data as JSON, for scripts
  --raw   config only: the nginx.conf text nginx serves, then the hosts the Lua route table serves (as comments)
  gateway: the Gateway API status Portico computes (/debug/gateway; the leader writes the same)`;

const SECTIONS: Readonly<Record<Exclude<InspectCommand, 'gateway'>, (s: State) => unknown>> = {
  backends: (s) => ({ routes: s.routes, stream: s.stream ?? [] }),
  config: (s) => s.routes,
  certs: (s) => s.certificates,
  status: (s) => ({ healthy: s.healthy, stopping: s.stopping, nginx: s.nginx, syncs: s.syncs, warnings: s.warnings, skipped: s.skipped }),
};

const TABLES: Readonly<Record<Exclude<InspectCommand, 'gateway'>, (s: State) => string>> = { backends: backendsTable, config: configTable, certs: certsTable, status: statusText };

async function fetchText(url: string): Promise<string> {
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  } catch (err) {
    throw new Error(`cannot reach Portico at ${url}: ${errorMessage(err)} (is it running? give its health port with --url)`);
  }
  const body = await res.text();
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${body.trim()}`);
  return body;
}

/** Runs one inspector command; resolves with the exit code (output written to `out`, errors to `err`). */
export async function runInspect(command: InspectCommand, argv: readonly string[], out: NodeJS.WritableStream, err: NodeJS.WritableStream): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args: [...argv], options: { url: { type: 'string' }, json: { type: 'boolean' }, raw: { type: 'boolean' }, help: { type: 'boolean' } }, strict: true }));
  } catch (e) {
    err.write(`portico ${command}: ${flagError(e, ['url', 'json', 'raw', 'help'])}\n${USAGE}\n`);
    return 2;
  }
  if (values.help === true) {
    out.write(`${USAGE}\n`);
    return 0;
  }
  const base = (values.url ?? 'http://127.0.0.1:10254').replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]+$/.test(base)) {
    err.write(`portico ${command}: --url: expected http://HOST:PORT, got ${JSON.stringify(values.url)}\n`);
    return 2;
  }
  try {
    if (command === 'config' && values.raw === true) {
      out.write(await fetchText(`${base}/debug/config`));
      return 0;
    }
    if (command === 'gateway') {
      const text = await fetchText(`${base}/debug/gateway`);
      out.write(values.json === true ? text : `${gatewayTables(JSON.parse(text) as GatewayDoc)}\n`);
      return 0;
    }
    const state = JSON.parse(await fetchText(`${base}/debug/state`)) as State;
    out.write(values.json === true ? `${JSON.stringify(SECTIONS[command](state), null, 2)}\n` : `${TABLES[command](state)}\n`);
    return 0;
  } catch (e) {
    err.write(`portico ${command}: ${errorMessage(e)}\n`);
    return 1;
  }
}
