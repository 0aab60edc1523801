// `portico migrate-check`: reads a folder or a cluster, judges it as Portico would serve it, prints the report.
import { parseFlags } from '../config/flags.js';
import { createLogger } from '../log.js';
import { checkConfigMap, checkIngresses, checkStream, served } from './check.js';
import { evaluatedArgs, findControllers, judgeFlags, splitFlags, type ControllerFound } from './controller-flags.js';
import type { Logger } from '../log.js';
import type { Snapshot } from '../model/input.js';
import { EVALUATED_FLAGS, INGRESS_NGINX_CLASS } from './differences.js';
import { loadDeployments, loadSnapshot, type Unreadable } from './inputs.js';
import { makeReport, reportText, type Report } from './report.js';
import { routesReport, routesText, type RoutesReport } from './httproute-output.js';
import { errorMessage } from '../errors.js';

/** The command line without the command word (the first `migrate-check`). */
function withoutCommand(argv: readonly string[]): string[] {
  const at = argv.indexOf('migrate-check');
  return at < 0 ? [...argv] : [...argv.slice(0, at), ...argv.slice(at + 1)];
}

/** What both outputs start from: the flags as a takeover would run Portico, the notes so far, and the snapshot read once. */
interface Evaluated {
  readonly user: string[];
  readonly defaults: string[];
  readonly log: Logger;
  readonly notes: string[];
  readonly controllers: ControllerFound[];
  readonly inherited: string[];
  readonly config: ReturnType<typeof parseFlags>;
  readonly snapshot: Snapshot;
  readonly unreadable: Unreadable[];
}

async function evaluate(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<Evaluated> {
  const user = withoutCommand(argv);
  const defaults = [`--controller-class=${INGRESS_NGINX_CLASS.controller}`, `--ingress-class=${INGRESS_NGINX_CLASS.ingressClass}`];
  const first = parseFlags(['migrate-check', ...defaults, ...user], env);
  const log = createLogger(first.logLevel === 'info' ? 'warn' : first.logLevel, process.stderr);
  const notes: string[] = [];
  const listed = await loadDeployments(first);
  if ('error' in listed) notes.push(`ingress-nginx's flags were not read: ${listed.error}`);
  const controllers = 'items' in listed ? findControllers(listed.items) : [];
  if (controllers.length > 1) notes.push(`${controllers.length} ingress-nginx controllers found: their flags are reported, none is used; give --controller-class and --ingress-class`);
  if (controllers.length === 0 && 'items' in listed) notes.push('no ingress-nginx controller Deployment found: no flags to map');
  const inherited = controllers.length === 1 && controllers[0] ? evaluatedArgs(controllers[0].flags) : [];
  const args = [...defaults, ...inherited, ...user];
  const config = parseFlags(['migrate-check', ...args], env);
  const { snapshot, unreadable } = await loadSnapshot(config, log);
  return { user, defaults, log, notes, controllers, inherited, config, snapshot, unreadable };
}

/**
 * Builds the report. The class defaults to ingress-nginx's (controller k8s.io/ingress-nginx, class nginx); the flags
 * of the one ingress-nginx controller found that decide what is served come next (as a takeover would run Portico);
 * the user's own flags come last and win.
 */
async function migrateReport(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<Report> {
  const { user, defaults, log, notes, controllers, inherited, config, snapshot, unreadable } = await evaluate(argv, env);
  const judged = served(snapshot, config, log.child({}, { level: 'silent' }));
  const configMap = checkConfigMap(snapshot, config);
  if (configMap && !configMap.found) notes.push(`the ConfigMap ${configMap.ref} (--configmap) does not exist`);
  const streamServices = checkStream(snapshot, config, judged.model);
  for (const c of streamServices) if (!c.found) notes.push(`the ConfigMap ${c.ref} (--${(c.protocol ?? '').toLowerCase()}-services-configmap) does not exist`);
  // Each flag once, with the value that won (the last one), in the order first given.
  const evaluated = new Map<string, string>();
  for (const [n, v] of splitFlags([...defaults, ...inherited, ...user])) if (EVALUATED_FLAGS.includes(n) || n === 'strict-host-ownership') evaluated.set(n, v);
  const evaluatedWith = [...evaluated].map(([n, v]) => `--${n}=${v}`);
  return makeReport({
    controllerClass: config.controllerClass,
    ingressClass: config.ingressClass,
    evaluatedWith,
    ingresses: checkIngresses(snapshot, config, judged),
    configMap: configMap ?? null,
    streamServices,
    unreadable,
    controllers: controllers.map((c) => ({ deployment: c.deployment, flags: judgeFlags(c.flags) })),
    notes,
  });
}

/** Runs the command; exit code 0 only when everything maps, 1 otherwise (2 for a bad command line, from main). */
export async function migrateCheck(argv: readonly string[], env: NodeJS.ProcessEnv, json: boolean): Promise<number> {
  const which = parseFlags(['migrate-check', ...withoutCommand(argv)], env).httproute;
  if (which !== '') {
    const { config, snapshot } = await evaluate(argv, env);
    let routes: RoutesReport;
    try {
      routes = routesReport(snapshot, config, which);
    } catch (err) {
      process.stderr.write(`portico migrate-check: ${errorMessage(err)}\n`);
      return 2;
    }
    process.stdout.write(json ? `${JSON.stringify(routes, null, 2)}\n` : routesText(routes));
    return routes.ok ? 0 : 1;
  }
  const report = await migrateReport(argv, env);
  process.stdout.write(json ? `${JSON.stringify(report, null, 2)}\n` : reportText(report));
  return report.ok ? 0 : 1;
}
