// ingress-nginx's controller Deployment: finding it, reading its flags, and judging each against Portico's flag table.
import type { Deployment } from 'kubernetes-types/apps/v1.js';
import { FLAGS, parseFlags } from '../config/flags.js';
import { asksForRefused, COMPAT_FLAGS } from '../config/flags-without-setting.js';
import { errorMessage } from '../errors.js';
import { EVALUATED_FLAGS, FLAG_DIFFERENCES } from './differences.js';
import type { Item } from './check.js';

/** One ingress-nginx controller found: where, and its flags with $(VAR) expanded as the kubelet does. */
export interface ControllerFound {
  readonly deployment: string;
  readonly flags: readonly (readonly [string, string])[];
}

const isController = (image: string | undefined, args: readonly string[]): boolean => /ingress-nginx\/controller/.test(image ?? '') || args.includes('/nginx-ingress-controller');

/** The ingress-nginx controllers among `deployments` (by image, or by the controller binary in args). */
export function findControllers(deployments: readonly Deployment[]): ControllerFound[] {
  const out: ControllerFound[] = [];
  for (const d of deployments) {
    const ns = d.metadata?.namespace ?? 'default';
    for (const c of d.spec?.template.spec?.containers ?? []) {
      const raw = [...(c.command ?? []), ...(c.args ?? [])];
      if (!isController(c.image, raw)) continue;
      const env: Record<string, string> = {};
      for (const e of c.env ?? []) {
        const f = e.valueFrom?.fieldRef?.fieldPath;
        if (f === 'metadata.namespace') env[e.name] = ns;
        else if (e.value !== undefined) env[e.name] = e.value;
      }
      const args = raw.map((a) => a.replace(/\$\((\w+)\)/g, (m, n: string) => env[n] ?? m));
      out.push({ deployment: `${ns}/${d.metadata?.name ?? ''}`, flags: splitFlags(args) });
    }
  }
  return out;
}

/** `--a=b`, `-a=b`, `--a b` (string flags Portico knows) and bare `--a` (true) into [name, value] pairs. */
export function splitFlags(args: readonly string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i < args.length; i++) {
    const m = /^--?([A-Za-z0-9][A-Za-z0-9-]*)(?:=(.*))?$/s.exec(args[i] ?? '');
    if (!m?.[1]) continue; // the binary, or a stray value
    const next = args[i + 1];
    if (m[2] !== undefined) out.push([m[1], m[2]]);
    else if ((FLAGS[m[1]] ?? COMPAT_FLAGS[m[1]])?.type === 'string' && next !== undefined && !next.startsWith('-')) out.push([m[1], args[++i] ?? '']);
    else out.push([m[1], 'true']);
  }
  return out;
}

/** Why Portico's own parser refuses the flag (with the webhook's companions, which only go together), or undefined. */
function refusal(name: string, value: string, all: readonly (readonly [string, string])[]): string | undefined {
  const group = name.startsWith('validating-webhook') ? all.filter(([n]) => n.startsWith('validating-webhook')) : [[name, value] as const];
  try {
    parseFlags(
      group.map(([n, v]) => `--${n}=${v}`),
      {},
    );
    return undefined;
  } catch (err) {
    return errorMessage(err);
  }
}

/** Each flag's verdict: same, different (how; ingress-nginx flags Portico maps or ignores), refused (why) or unknown. */
export function judgeFlags(flags: readonly (readonly [string, string])[]): Item[] {
  return flags.map(([name, value]) => {
    const key = `--${name}`;
    const compat = FLAGS[name] === undefined ? COMPAT_FLAGS[name] : undefined;
    if (FLAGS[name] === undefined && compat === undefined) return { key, value, verdict: 'unknown', detail: 'Portico has no such flag' };
    if (compat !== undefined && asksForRefused(compat, value)) return { key, value, verdict: 'refused', detail: compat.doc };
    const bad = refusal(name, value, flags);
    if (bad !== undefined) return { key, value, verdict: 'refused', detail: bad };
    // A refused flag whose value does not ask for it (--enable-ssl-chain-completion=false) asks for what Portico does.
    if (compat?.status === 'refused') return { key, value, verdict: 'same', detail: '' };
    const diff = compat !== undefined ? `${compat.status}: ${compat.doc}` : FLAG_DIFFERENCES[name];
    return diff !== undefined ? { key, value, verdict: 'different', detail: diff } : { key, value, verdict: 'same', detail: '' };
  });
}

/** The flags of the controller that Portico evaluates with (see EVALUATED_FLAGS), as Portico arguments. */
export function evaluatedArgs(flags: readonly (readonly [string, string])[]): string[] {
  const judged = judgeFlags(flags);
  return flags.flatMap(([name, value], i) => {
    const v = judged[i]?.verdict;
    return EVALUATED_FLAGS.includes(name) && (v === 'same' || v === 'different') ? [`--${name}=${value}`] : [];
  });
}
