// Shared helpers of the API server double's tests: start a double with a KubeConfig, read Status errors, wait.
import { KubeConfig } from '@kubernetes/client-node';
import { ApiServerDouble, type ApiServerDoubleOptions } from '../support/apiserver/index.js';

export interface Started {
  readonly api: ApiServerDouble;
  readonly kc: KubeConfig;
}

/** Start a double and a KubeConfig pointing at it; the caller stops it (t.after). */
export async function startDouble(opts: ApiServerDoubleOptions = {}): Promise<Started> {
  const api = new ApiServerDouble({ bookmarkIntervalMs: 0, ...opts });
  await api.start();
  const kc = new KubeConfig();
  kc.loadFromString(api.kubeconfig());
  return { api, kc };
}

/** The HTTP code and Status body of a failed client-node call. */
export function statusOf(err: unknown): { code: number; reason: string; message: string; kind: string } {
  const e = err as { code?: number; body?: unknown };
  const body = typeof e.body === 'string' ? (JSON.parse(e.body) as Record<string, unknown>) : ((e.body ?? {}) as Record<string, unknown>);
  return { code: e.code ?? 0, reason: String(body.reason), message: String(body.message), kind: String(body.kind) };
}

/** Await a rejected promise and return its Status. */
export async function failure(p: Promise<unknown>): Promise<ReturnType<typeof statusOf>> {
  try {
    await p;
  } catch (err) {
    return statusOf(err);
  }
  throw new Error('expected the call to fail');
}

/** Poll pred every 10 ms until it holds; fail after timeoutMs with what it was waiting for. */
export async function until(pred: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** client-node returns class instances (V1IngressStatus, ...); compare them as plain JSON. */
export function plain(v: unknown): unknown {
  return v === undefined ? undefined : (JSON.parse(JSON.stringify(v)) as unknown);
}
