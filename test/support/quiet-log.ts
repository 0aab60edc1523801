// A logger that writes nowhere, for tests that build and render in-process and assert on the result only.
import { Writable } from 'node:stream';
import { createLogger } from '../../src/log.js';
import type { Logger } from '../../src/log.js';

export function quietLogger(): Logger {
  return createLogger(
    'silent',
    new Writable({
      write(_c: Buffer, _e, cb) {
        cb();
      },
    }),
  );
}
