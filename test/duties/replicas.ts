// Several real Portico replicas against the API server double: pods to run as, the Lease holder sampled over time,
// leadership spans read from each replica's log, a hard kill that also ends the orphaned nginx, status writes, Events.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ApiServerDouble, RequestRecord } from '../support/apiserver/index.js';
import { until, type Running } from '../support/portico.js';
import { put, route, type Cluster } from '../kube/cluster.js';

export const NS = 'portico';
const LEASE = 'portico-leader';

/** A ready Pod of the controller (labels shared by every replica), so RELOAD Events and replica counting have one. */
function pod(name: string): unknown {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: NS, labels: { app: 'portico' } },
    spec: { nodeName: 'node-1', containers: [{ name: 'portico', image: 'portico' }] },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
  };
}

/**
 * An Ingress whose arrival or removal reloads nginx: its server-alias keeps the host a server block. A plain host is a
 * row of the Lua route table (dynamic routes, the default: docs/adr/0014), added and removed without a reload.
 */
export function reloadingRoute(name: string, host: string, svc: string): unknown {
  const r = route(name, host, svc) as { metadata: Record<string, unknown> };
  return { ...r, metadata: { ...r.metadata, annotations: { 'nginx.ingress.kubernetes.io/server-alias': `www.${host}` } } };
}

/** Starts one replica named `name` (POD_NAME) in namespace portico, with a short TTL and `args`. */
export async function replica(c: Cluster, name: string, args: readonly string[]): Promise<Running> {
  put(c.api, pod(name));
  return c.portico(['--election-ttl', '3s', ...args], { env: { POD_NAME: name, POD_NAMESPACE: NS } });
}

/** The Lease's holder now ('' when free or absent). */
export function holder(api: ApiServerDouble): string {
  const lease = api.get('Lease', NS, LEASE) as { spec?: { holderIdentity?: string } } | undefined;
  return lease?.spec?.holderIdentity ?? '';
}

/** Samples the Lease holder every `stepMs` (bounded by `maxSamples`); keeps each change with its time. */
export class HolderLog {
  readonly changes: { holder: string; at: number }[] = [];
  private readonly timer: NodeJS.Timeout;
  private samples = 0;

  constructor(
    private readonly api: ApiServerDouble,
    stepMs = 20,
    maxSamples = 20_000,
  ) {
    this.timer = setInterval(() => {
      this.samples += 1;
      if (this.samples > maxSamples) {
        clearInterval(this.timer);
        return;
      }
      const h = holder(this.api);
      if (this.changes.at(-1)?.holder !== h) this.changes.push({ holder: h, at: Date.now() });
    }, stepMs);
  }

  /** Resolves with the time (ms since `since`) when the holder is neither '' nor `old`. */
  async successorOf(old: string, since: number, timeoutMs: number): Promise<{ holder: string; ms: number }> {
    await until(`a holder other than ${old}`, () => this.changes.some((c) => c.at >= since && c.holder !== '' && c.holder !== old), timeoutMs, 10);
    const c = this.changes.find((x) => x.at >= since && x.holder !== '' && x.holder !== old)!;
    return { holder: c.holder, ms: c.at - since };
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

/** [start, end) of each time a replica led, from its "became the leader" / "stopped leading" log lines. */
function leaderSpans(p: Running, endAt = Date.now()): [number, number][] {
  const spans: [number, number][] = [];
  let from: number | undefined;
  for (const line of p.output) {
    if (!line.includes('"msg":"became the leader"') && !line.includes('"msg":"stopped leading"')) continue;
    const at = Date.parse((JSON.parse(line) as { time: string }).time);
    if (line.includes('became the leader')) from = at;
    else if (from !== undefined) {
      spans.push([from, at]);
      from = undefined;
    }
  }
  if (from !== undefined) spans.push([from, endAt]);
  return spans;
}

/** Pairs of replicas whose leadership spans overlap (should be none). */
export function overlaps(replicas: ReadonlyMap<string, Running>, ends: ReadonlyMap<string, number>): string[] {
  const all = [...replicas].flatMap(([name, p]) => leaderSpans(p, ends.get(name)).map((s) => ({ name, s })));
  const found: string[] = [];
  for (const a of all)
    for (const b of all) {
      if (a.name < b.name && a.s[0] < b.s[1] && b.s[0] < a.s[1]) found.push(`${a.name} ${a.s.join('-')} / ${b.name} ${b.s.join('-')}`);
    }
  return found;
}

/** SIGKILL, as the kubelet's last resort: Portico cannot stop its nginx, so the test ends that nginx by its PID. */
export async function kill(p: Running): Promise<void> {
  const nginxPid = Number((await readFile(join(p.workDir, 'nginx.pid'), 'utf8')).trim());
  p.proc.kill('SIGKILL');
  await until('portico gone', () => p.proc.exitCode !== null || p.proc.signalCode !== null, 5000);
  if (nginxPid > 0) {
    try {
      process.kill(nginxPid, 'SIGTERM');
    } catch {
      /* already gone */
    }
    await until(
      'orphaned nginx gone',
      () => {
        try {
          process.kill(nginxPid, 0);
          return false;
        } catch {
          return true;
        }
      },
      5000,
    );
  }
}

/** The exit code once the process has exited by itself (null when a signal ended it); throws after `timeoutMs`. */
export async function exited(p: Running, timeoutMs: number): Promise<number | null> {
  await until('portico exited', () => p.proc.exitCode !== null || p.proc.signalCode !== null, timeoutMs);
  return p.proc.exitCode;
}

/** Status-subresource writes to Ingresses, optionally of one Ingress. */
export function statusWrites(api: ApiServerDouble, name?: string): RequestRecord[] {
  return api.writes('Ingress').filter((w) => w.subresource === 'status' && (name === undefined || w.name === name));
}

/** The status.loadBalancer.ingress the double holds for an Ingress in namespace default. */
export function addressOf(api: ApiServerDouble, name: string): unknown[] {
  const ing = api.get('Ingress', 'default', name) as { status?: { loadBalancer?: { ingress?: unknown[] } } } | undefined;
  return ing?.status?.loadBalancer?.ingress ?? [];
}

export interface KubeEvent {
  readonly type: string;
  readonly reason: string;
  readonly note: string;
  readonly reportingInstance: string;
  readonly regarding: { kind: string; namespace: string; name: string };
}

/** events.k8s.io/v1 Events in `ns`. */
export function events(api: ApiServerDouble, ns: string): KubeEvent[] {
  return api.list('events.k8s.io/v1/Event', ns) as unknown as KubeEvent[];
}
