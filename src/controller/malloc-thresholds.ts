// glibc's malloc trim threshold fixed at the controller's start, as the image's MALLOC_TRIM_THRESHOLD_ fixes it
// (docs/adr/0058, docs/adr/0062). Without it, a sync's large messages between the two threads (10-20 MiB at 10,000
// Ingresses) raise glibc's dynamic thresholds, and a thread's arena then keeps about 31 MiB of freed memory for good.
import type { Logger } from '../log.js';

/** mallopt's parameter number for the trim threshold (glibc's malloc.h: M_TRIM_THRESHOLD). */
const M_TRIM_THRESHOLD = -1;
/** glibc's own default trim threshold: setting it also turns the dynamic thresholds off (mallopt(3)). */
const TRIM_THRESHOLD = 128 * 1024;
/** The environment variables by which glibc takes an operator's own thresholds: any of them set, Portico sets none. */
const MALLOC_ENV = ['MALLOC_TRIM_THRESHOLD_', 'MALLOC_MMAP_THRESHOLD_', 'MALLOC_TOP_PAD_', 'MALLOC_MMAP_MAX_'] as const;

/** The operator's own malloc settings in `env`: MALLOC_ENV, or GLIBC_TUNABLES naming a glibc.malloc tunable. */
function ownSettings(env: NodeJS.ProcessEnv): string[] {
  const own: string[] = MALLOC_ENV.filter((k) => env[k] !== undefined);
  if (env['GLIBC_TUNABLES']?.includes('glibc.malloc.') === true) own.push('GLIBC_TUNABLES');
  return own;
}

/** What fixMallocThresholds did: set the threshold, left the operator's environment, or found no glibc to ask. */
export type MallocThresholds = 'set' | 'environment' | 'unavailable';

/** The C function mallopt(int, int) of the process's libc, through koffi (a maintained FFI library); undefined without glibc. */
type Mallopt = (param: number, value: number) => number;

async function loadMallopt(): Promise<Mallopt | undefined> {
  if (process.platform !== 'linux') return undefined;
  try {
    const koffi = await import('koffi');
    // libc.so.6 is glibc's soname; musl (Alpine) has none, and mallopt's thresholds are glibc's own
    const fn = koffi.load('libc.so.6').func('int mallopt(int, int)');
    return (param, value) => Number(fn(param, value));
  } catch {
    return undefined;
  }
}

/**
 * Fixes glibc's trim threshold at its default for this process, as MALLOC_TRIM_THRESHOLD_=131072 in the environment
 * would (mallopt returns 1 on success), unless the operator set their own (ownSettings): then theirs stands. Once, before
 * the first sync; the threads share the setting. Logged at debug level: nothing here stops a start.
 */
export async function fixMallocThresholds(log: Logger, env: NodeJS.ProcessEnv = process.env, load: () => Promise<Mallopt | undefined> = loadMallopt): Promise<MallocThresholds> {
  const own = ownSettings(env);
  if (own.length > 0) {
    log.debug({ environment: own }, "glibc's malloc thresholds: the environment's");
    return 'environment';
  }
  const mallopt = await load();
  if (mallopt === undefined || mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD) !== 1) {
    log.debug("glibc's malloc thresholds: not set (no glibc mallopt)");
    return 'unavailable';
  }
  log.debug({ trimThreshold: TRIM_THRESHOLD }, "glibc's malloc trim threshold fixed (as MALLOC_TRIM_THRESHOLD_ would)");
  return 'set';
}
