// Structured logging (pino) shared by every impure module; pure modules never log.
import { fstatSync } from 'node:fs';
import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

/** Creates the process logger. Level names follow pino (debug, info, warn, error). */
export function createLogger(level: string, destination?: NodeJS.WritableStream | DestinationStream): Logger {
  const opts = { level, base: { app: 'portico' }, timestamp: pino.stdTimeFunctions.isoTime };
  return destination ? pino(opts, destination) : pino(opts);
}

/**
 * Where the controller's log lines go: fd 1 (undefined), except when it is a regular file (`portico … > file`): then
 * a new description of it opened to append. nginx appends its access log to the same file through /dev/stdout; through
 * the shell's `>` (no O_APPEND) Portico would write at its own offset, over nginx's lines.
 */
export function stdoutDestination(): DestinationStream | undefined {
  try {
    if (!fstatSync(1).isFile()) return undefined;
    return pino.destination({ dest: '/dev/stdout', append: true, sync: true });
  } catch {
    return undefined;
  }
}
