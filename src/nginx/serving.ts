// How process.ts knows nginx serves a configuration (its hash on the status server) and swaps nginx.conf in and back
// out around a reload whose `nginx -t` runs beside it (docs/adr/0053).
import { copyFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { errorMessage } from '../errors.js';
import { ask } from './endpoint.js';

export interface ServingWatch {
  readonly statusPort: number;
  /** Whether the master still runs: an exit ends the wait at once. */
  readonly alive: () => boolean;
  /** When to give up (epoch ms), asked again on every poll: a test beside the reload moves it when it ends. */
  readonly deadline: () => number;
  /** Aborted: the wait ends (rejects) at its next poll. */
  readonly signal?: AbortSignal;
}

/**
 * Polls the status server on fresh connections until it reports the configuration `hash`: every 10 ms at first, then
 * less often as the wait grows (a tenth of it, at most every 100 ms). Every 10 ms throughout, the polls took a fifth of
 * a core from the reload they wait for at 100,000 Ingresses (5-6 s of parsing; docs/adr/0053).
 */
export async function untilServing(w: ServingWatch, hash: string): Promise<void> {
  let last = 'no answer';
  const started = Date.now();
  while (Date.now() < w.deadline()) {
    if (!w.alive()) throw new Error('nginx exited');
    if (w.signal?.aborted === true) throw new Error('stopped waiting: the configuration was refused');
    try {
      last = (await ask(w.statusPort, '/portico/config-hash', { timeoutMs: 5000 })).text.trim();
      if (last === hash) return;
    } catch (err) {
      last = errorMessage(err);
    }
    await sleep(Math.min(100, Math.max(10, (Date.now() - started) / 10)));
  }
  throw new Error(`nginx did not serve the new configuration within the time it was given (last answer: ${last})`);
}

const LIVE = 'nginx.conf';
const LAST = 'nginx.conf.last';

/**
 * nginx.conf becomes a copy of `candidate` (which the test beside the reload keeps reading); the file it replaces is
 * kept as nginx.conf.last for putBack. Each step leaves a whole nginx.conf in place: a master restarted after a crash
 * in between reads one file or the other, never half of one.
 */
export async function swapIn(workDir: string, candidate: string): Promise<void> {
  const live = join(workDir, LIVE);
  await copyFile(live, join(workDir, LAST));
  await copyFile(candidate, `${live}.next`);
  await rename(`${live}.next`, live);
}

/** nginx.conf is again the file swapIn replaced: what nginx serves after a refused reload, also for a later restart. */
export async function putBack(workDir: string): Promise<void> {
  await rename(join(workDir, LAST), join(workDir, LIVE));
}
