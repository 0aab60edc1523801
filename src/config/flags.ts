// The command line: parseArgs options, --help and the parse into Config, all derived from the flag tables (flag.ts).
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../errors.js';
import { CONFIG_FLAGS, finalizeConfig, type Config } from './config.js';
import { parseTable, plain, toggle, type Flag, type FlagValues, type GivenValue } from './flag.js';
import { COMPAT_FLAGS, refusedFlagWarnings } from './flags-without-setting.js';
import { commandError, flagError } from './suggest.js';

/** The flags that ask for something besides the controller's Config. */
const COMMAND_FLAGS = {
  json: toggle('json', false, 'migrate-check: print the report as JSON instead of a table'),
  httproute: plain('httproute', '', 'migrate-check: print the HTTPRoutes expressing the Ingress NAMESPACE/NAME (or all) and the annotations with no Gateway API equivalent'),
  version: toggle('version', false, "print Portico's version, git commit and nginx package version"),
  help: toggle('help', false, 'print this help'),
};

/** Every flag of Portico by its name: its text form, default and help (docs/flags.md and migrate-check read it). */
export const FLAGS: Readonly<Record<string, Pick<Flag<unknown>, 'type' | 'default' | 'doc'>>> = Object.fromEntries(
  [...Object.values(CONFIG_FLAGS), ...Object.values(COMMAND_FLAGS)].map((f): [string, Flag<unknown>] => [f.name, f]),
);

/** Commands besides running the controller: the first argument. */
export const COMMANDS = ['render', 'migrate-check'] as const;

/** The commands that inspect a running instance (src/inspect/). */
export const INSPECT_COMMANDS = ['backends', 'config', 'certs', 'status', 'gateway'] as const;

/** Go-style flags (`-flag`, `--flag=true`) become what parseArgs takes, so ingress-nginx command lines work. */
function normalizeArgv(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (const raw of argv) {
    const arg = /^-[a-z]/.test(raw) && raw.length > 2 ? `-${raw}` : raw;
    const m = /^--([a-z_-]+)=(true|false)$/.exec(arg);
    if (m?.[1] && FLAGS[m[1]] === undefined && COMPAT_FLAGS[m[1]]?.type === 'boolean') {
      if (m[2] === 'true') out.push(`--${m[1]}`);
      continue;
    }
    if (m?.[1] && FLAGS[m[1]]?.type === 'boolean') {
      if (m[2] === 'true') out.push(`--${m[1]}`);
      else if (FLAGS[m[1]]?.default !== 'false') out.push(`--no-${m[1]}`);
      continue;
    }
    out.push(arg);
  }
  return out;
}

/** The help text, one line a flag. */
export function helpText(): string {
  const lines = Object.entries(FLAGS).map(([name, f]) => `  --${name.padEnd(30)} ${f.doc}${f.type === 'string' && f.default ? ` (default ${f.default})` : ''}`);
  const compat = Object.entries(COMPAT_FLAGS).map(([name, f]) => `  --${name.padEnd(30)} ${f.status}: ${f.doc}`);
  return [
    'usage: portico [render | migrate-check] [flags]',
    '       portico backends | config | certs | status | gateway [--url http://HOST:PORT] [--json]   (inspect a running instance)',
    '',
    ...lines,
    '',
    'ingress-nginx flags accepted for compatibility (docs/flags.md):',
    ...compat,
  ].join('\n');
}

/** Parses argv (without node and script) into the frozen Config, or throws ConfigError naming the flag. */
export function parseFlags(argv: readonly string[], env: NodeJS.ProcessEnv): Readonly<Config> & FlagValues<typeof COMMAND_FLAGS> & { warnings: readonly string[] } {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = Object.fromEntries(
    [...Object.entries(COMPAT_FLAGS), ...Object.entries(FLAGS)].map(([name, f]) => [name, { type: f.type }]),
  );
  options['v'] = { type: 'string', short: 'v' };
  for (const [name, f] of Object.entries(FLAGS)) if (f.type === 'boolean' && f.default !== 'false') options[`no-${name}`] = { type: 'boolean' };
  let parsed;
  try {
    parsed = parseArgs({ args: normalizeArgv(argv), options, allowPositionals: true, strict: true });
  } catch (err) {
    const known = Object.keys(options).filter((n) => n !== 'v');
    throw new ConfigError(`${flagError(err, known)} (see portico --help)`);
  }
  const { values, positionals } = parsed;
  const ctx = { given: (name: string): GivenValue => values[name], env };
  const mode = commandOf(positionals);
  const config = finalizeConfig({
    mode,
    ...parseTable(CONFIG_FLAGS, ctx),
    luaDir: fileURLToPath(new URL('../../../lua/', import.meta.url)),
    podName: env['POD_NAME'] || undefined,
    podNamespace: env['POD_NAMESPACE'] || undefined,
  });
  return Object.freeze({ ...config, ...parseTable(COMMAND_FLAGS, ctx), warnings: refusedFlagWarnings(values) });
}

/** The command word (`run` without one); an unknown word names every command and the nearest one. */
function commandOf(positionals: readonly string[]): 'run' | (typeof COMMANDS)[number] {
  const mode = COMMANDS.find((c) => c === positionals[0]) ?? 'run';
  if (mode === 'run' && positionals[0] !== undefined) throw new ConfigError(commandError(positionals[0], [...COMMANDS, ...INSPECT_COMMANDS]));
  if (positionals.length > 1) throw new ConfigError(`unexpected argument ${JSON.stringify(positionals.slice(1).join(' '))} after ${positionals[0] ?? ''}`);
  return mode;
}
