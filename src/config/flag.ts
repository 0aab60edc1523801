// One command-line flag, declared once: its name, text form, default, help and the parser that gives its Config value.

/** A flag's text as parseArgs gave it: a string, true for a bare boolean flag, undefined when absent. */
export type GivenValue = string | boolean | undefined;

/** What a parser may read besides its own text: other flags as given (for defaults that follow them) and the environment. */
export interface FlagContext {
  readonly given: (name: string) => GivenValue;
  readonly env: NodeJS.ProcessEnv;
}

/**
 * A flag of Portico. `name` is ingress-nginx's flag name where it has one. `default` is the text parsed when the flag
 * is absent, and what --help and docs/flags.md show. `parse` turns the text (given or default; `true`/`false` for a
 * boolean) into the Config value, or throws ConfigError naming `--${flag}`; its return type is the field's type.
 */
export interface Flag<T> {
  readonly name: string;
  readonly type: 'string' | 'boolean';
  readonly default: string;
  readonly doc: string;
  readonly parse: (flag: string, text: string, ctx: FlagContext) => T;
}

/** A table of flags keyed by the Config field each fills. */
export type FlagTable = Readonly<Record<string, Flag<unknown>>>;

/** The typed values a table of flags fills: one readonly field per entry, typed by its parser. */
export type FlagValues<T extends FlagTable> = { readonly [K in keyof T]: T[K] extends Flag<infer V> ? V : never };

/** A string flag whose parser takes (flag, text) as every value parser of values.ts does. */
export function text<T>(name: string, dflt: string, doc: string, parse: (flag: string, text: string, ctx: FlagContext) => T): Flag<T> {
  return { name, type: 'string', default: dflt, doc, parse };
}

/** A string flag taken as it is. */
export function plain(name: string, dflt: string, doc: string): Flag<string> {
  return text(name, dflt, doc, (_flag, t) => t);
}

/** A string flag that is unset when empty (its default), else parsed. */
export function optional<T>(name: string, doc: string, parse: (flag: string, text: string) => T): Flag<T | undefined> {
  return text(name, '', doc, (flag, t) => (t === '' ? undefined : parse(flag, t)));
}

/** A string flag that is unset when empty, else taken as it is. */
export function optionalPlain(name: string, doc: string): Flag<string | undefined> {
  return optional(name, doc, (_flag, t) => t);
}

/** A boolean flag; one whose default is true also takes --no-NAME and NAME=false. */
export function toggle(name: string, dflt: boolean, doc: string): Flag<boolean> {
  return { name, type: 'boolean', default: String(dflt), doc, parse: (_flag, t) => t === 'true' };
}

/** A flag's text for its parser: what was given, else its default (`--no-NAME` gives `false`). */
function textOf(f: Flag<unknown>, given: (name: string) => GivenValue): string {
  if (f.type === 'boolean') return given(`no-${f.name}`) === true ? 'false' : given(f.name) === true ? 'true' : f.default;
  const v = given(f.name);
  return typeof v === 'string' ? v : f.default;
}

/** Parses every flag of a table into its field. */
export function parseTable<T extends FlagTable>(table: T, ctx: FlagContext): FlagValues<T> {
  const out: Record<string, unknown> = {};
  for (const [field, f] of Object.entries(table)) out[field] = f.parse(f.name, textOf(f, ctx.given), ctx);
  // Each field holds what its own entry's parser returned, the type FlagValues<T> gives it.
  return out as FlagValues<T>;
}
