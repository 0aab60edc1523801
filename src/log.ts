// Structured logging (pino) shared by every impure module; pure modules never log.
import { pino, type Logger } from 'pino';

export type { Logger };

/** Creates the process logger. Level names follow pino (debug, info, warn, error). */
export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  const opts = { level, base: { app: 'portico' }, timestamp: pino.stdTimeFunctions.isoTime };
  return destination ? pino(opts, destination) : pino(opts);
}
