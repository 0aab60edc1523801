// The stop signal: SIGINT/SIGTERM (or npm's parent gone, or a failed start) caught from the first line of a run, final.
import type { Logger } from '../log.js';

/**
 * Catches SIGINT and SIGTERM for the whole life of the process: one that arrives while Portico starts (a slow first
 * list of the API) stops it too, and a second one (kubectl, a supervisor, Ctrl-C twice, or a signal to the whole
 * process group) never kills it halfway, which would leave nginx behind and the Lease held until it expires. Hooks
 * run at once on the first signal (readiness fails, nginx is no longer restarted), before the slower steps.
 */
export class StopSignal {
  /** Resolves with what stopped Portico: the signal's name, 'parent-exited' or 'failed'. */
  readonly signalled: Promise<string>;
  private received: string | undefined;
  private readonly hooks: (() => void)[] = [];
  private resolve: (reason: string) => void = () => undefined;
  /** Set by fail(): the run ends with this error (and a non-zero exit) once everything is stopped. */
  failure: Error | undefined;

  constructor(private readonly log: Logger) {
    this.signalled = new Promise((r) => {
      this.resolve = r;
    });
    const onSignal = (sig: NodeJS.Signals): void => {
      if (this.received !== undefined) {
        this.log.info({ signal: sig, first: this.received }, 'already stopping');
        return;
      }
      this.trigger(sig);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }

  private trigger(reason: string): void {
    this.received = reason;
    for (const h of this.hooks.splice(0)) h();
    this.resolve(reason);
  }

  /** Stops Portico because of `err` (nginx could not start at all): the run ends with it, exit status 1. */
  fail(err: Error): void {
    if (this.received !== undefined) return;
    this.failure = err;
    this.trigger('failed');
  }

  /**
   * Stops Portico when the process that started it exits. npm (`npx portico`, `npm run`) starts Portico under a
   * shell (`sh -c`) and forwards SIGTERM/SIGINT to that shell only, which dies without passing them on: Portico is
   * then reparented (to PID 1 or a subreaper), and this is how it still stops. Polls, `intervalMs` apart.
   */
  watchParent(intervalMs = 500): void {
    const parent = process.ppid;
    if (parent <= 1) return; // started by init (or PID 1 itself): nothing to watch
    const timer = setInterval(() => {
      if (process.ppid === parent) return;
      clearInterval(timer);
      if (this.received !== undefined) return;
      this.log.warn({ parent }, 'the process that started Portico exited (npm passes no signal on): stopping');
      this.trigger('parent-exited');
    }, intervalMs);
    timer.unref();
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
