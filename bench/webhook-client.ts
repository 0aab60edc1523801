// bench/webhook.ts's API-server side, in a process of its own (forked with an IPC channel), as the API server is:
// its TLS and JSON work does not run on the event loop of the webhook it measures. It takes one job at a time:
// request bodies, a concurrency and whether to open the connections first, and answers with each review's round trip.
import { Agent, request } from 'node:https';

export interface ClientJob {
  readonly port: number;
  readonly ca: string;
  readonly bodies: readonly string[];
  readonly concurrency: number;
  /** Open `concurrency` connections (one review each, not counted) before the measured ones, as a pool is kept. */
  readonly warm: boolean;
}

export interface ClientResult {
  readonly ms: readonly number[];
  readonly refused: number;
  /** The warm-up reviews' round trips (they open the connections); empty without warm-up. */
  readonly warmMs: readonly number[];
  readonly wallMs: number;
  /** This process's CPU for the measured reviews (TLS, JSON), kept apart from the webhook's. */
  readonly cpuMs: number;
}

/** How long one review may take before the run fails (a stuck webhook must not hang the bench). */
const TIMEOUT_MS = 900_000;

function post(agent: Agent, port: number, body: string): Promise<{ ms: number; allowed: boolean }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = request({ host: '127.0.0.1', port, servername: 'localhost', path: '/', method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (x: Buffer) => chunks.push(x));
      res.on('end', () => {
        const reply = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { response?: { allowed?: boolean } };
        resolve({ ms: performance.now() - t0, allowed: reply.response?.allowed === true });
      });
    });
    req.setTimeout(TIMEOUT_MS, () => req.destroy(new Error(`review timed out (${TIMEOUT_MS / 1000} s)`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** `bodies` from `concurrency` clients at once (1: one after another), each review's round trip in body order. */
async function run(agent: Agent, port: number, bodies: readonly string[], concurrency: number): Promise<{ ms: number[]; refused: number }> {
  const ms: number[] = new Array<number>(bodies.length).fill(0);
  let refused = 0;
  let next = 0;
  const client = async (): Promise<void> => {
    // Each client takes the next body until none is left: at most bodies.length rounds in all.
    while (next < bodies.length) {
      const k = next++;
      const r = await post(agent, port, bodies[k] ?? '');
      ms[k] = r.ms;
      if (!r.allowed) refused += 1;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, bodies.length) }, client));
  return { ms, refused };
}

async function job(j: ClientJob): Promise<ClientResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: j.concurrency, ca: j.ca });
  try {
    const warmBodies = j.warm ? j.bodies.slice(0, j.concurrency) : [];
    const warm = await run(agent, j.port, warmBodies, j.concurrency);
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const r = await run(agent, j.port, j.bodies, j.concurrency);
    const wallMs = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    return { ms: r.ms, refused: r.refused, warmMs: warm.ms, wallMs, cpuMs: (cpu.user + cpu.system) / 1000 };
  } finally {
    agent.destroy();
  }
}

process.on('message', (j: ClientJob) => {
  job(j).then(
    (r) => process.send?.({ ok: true, result: r }),
    (err: unknown) => process.send?.({ ok: false, error: err instanceof Error ? err.message : String(err) }),
  );
});
process.on('disconnect', () => process.exit(0));
