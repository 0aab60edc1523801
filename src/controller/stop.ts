// The stop signal: SIGINT/SIGTERM caught from the first line of a run, final whatever arrives after or when.
import type { Logger } from '../log.js';

/**
 * Catches SIGINT and SIGTERM for the whole life of the process: one that arrives while Portico starts (a slow first
 * list of the API) stops it too, and a second one (kubectl, a supervisor, Ctrl-C twice, or a signal to the whole
 * process group) never kills it halfway, which would leave nginx behind and the Lease held until it expires. Hooks
 * run at once on the first signal (readiness fails, nginx is no longer restarted), before the slower steps.
 */
export class StopSignal {
  readonly signalled: Promise<NodeJS.Signals>;
  private received: NodeJS.Signals | undefined;
  private readonly hooks: (() => void)[] = [];

  constructor(private readonly log: Logger) {
    let resolve: (s: NodeJS.Signals) => void = () => undefined;
    this.signalled = new Promise((r) => {
      resolve = r;
    });
    const onSignal = (sig: NodeJS.Signals): void => {
      if (this.received !== undefined) {
        this.log.info({ signal: sig, first: this.received }, 'already stopping');
        return;
      }
      this.received = sig;
      for (const h of this.hooks.splice(0)) h();
      resolve(sig);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }

  get stopping(): boolean {
    return this.received !== undefined;
  }

  /** Runs `hook` on the first signal (now, if it came already). */
  onStop(hook: () => void): void {
    if (this.received !== undefined) hook();
    else this.hooks.push(hook);
  }

  /** Resolves with true when `work` finished first, false when a signal came first (work keeps running). */
  async before(work: Promise<unknown>): Promise<boolean> {
    return Promise.race([work.then(() => true), this.signalled.then(() => false)]);
  }
}

/**
 * After an orderly stop, nothing may keep the process alive (an informer's socket, a keep-alive scrape): exit
 * with `code` if the event loop has not drained within `ms`.
 */
export function exitAfter(code: number, ms: number, log: Logger): void {
  setTimeout(() => {
    log.warn({ ms }, 'handles still open after the stop; exiting');
    process.exit(code);
  }, ms).unref();
}
