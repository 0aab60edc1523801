// Kubernetes Events (events.k8s.io/v1): deduplicated into series, rate-limited per object, written off the sync path.
import { EventsV1Api, EventsV1Event, PatchStrategy, setHeaderOptions, type KubeConfig } from '@kubernetes/client-node';
import type { Event } from 'kubernetes-types/events/v1.js';
import { microTime } from './leader.js';
import { errorMessage } from '../errors.js';
import type { Logger } from '../log.js';
import type { ObjectRef } from '../model/types.js';

export interface EventSpec {
  readonly regarding: ObjectRef;
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly action: string;
  readonly note: string;
}

export interface EventOptions {
  readonly kc: KubeConfig;
  readonly log: Logger;
  /** reportingController, e.g. portico.dev/ingress-controller. */
  readonly controller: string;
  /** reportingInstance: the pod name. */
  readonly instance: string;
  /** Events per object at once (client-go's spam filter allows 25), then one per refill period. */
  readonly burst?: number;
  readonly refillMs?: number;
}

/** Identical events within this window become one Event with a series count. */
const SERIES_WINDOW_MS = 10 * 60_000;
/** A series is patched at most this often; counts in between are carried by the next patch. */
const SERIES_PATCH_MS = 30_000;
const MAX_QUEUE = 1000;
const MAX_TRACKED = 5000;
const API_VERSIONS: Readonly<Record<string, string>> = {
  Ingress: 'networking.k8s.io/v1',
  IngressClass: 'networking.k8s.io/v1',
  Pod: 'v1',
  Service: 'v1',
  Secret: 'v1',
  ConfigMap: 'v1',
  EndpointSlice: 'discovery.k8s.io/v1',
  GatewayClass: 'gateway.networking.k8s.io/v1',
  Gateway: 'gateway.networking.k8s.io/v1',
  HTTPRoute: 'gateway.networking.k8s.io/v1',
  GRPCRoute: 'gateway.networking.k8s.io/v1',
  BackendTLSPolicy: 'gateway.networking.k8s.io/v1',
  TLSRoute: 'gateway.networking.k8s.io/v1',
  TCPRoute: 'gateway.networking.k8s.io/v1',
  UDPRoute: 'gateway.networking.k8s.io/v1',
  ListenerSet: 'gateway.networking.k8s.io/v1',
};

/** client-node's serializer reads a body's fields by name, so the API's JSON shape goes out exactly as the class. */
function eventBody(e: Event): EventsV1Event {
  return Object.assign(new EventsV1Event(), e as object);
}

interface Series {
  name: string;
  namespace: string;
  count: number;
  firstAt: number;
  patchedAt: number;
}
type Job = { op: 'create'; body: Event; key: string } | { op: 'patch'; key: string };

export class EventRecorder {
  private readonly api: EventsV1Api;
  private readonly series = new Map<string, Series>();
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly queue: Job[] = [];
  private working: Promise<void> | undefined;
  private dropped = 0;
  private seq = 0;

  constructor(private readonly opts: EventOptions) {
    this.api = opts.kc.makeApiClient(EventsV1Api);
  }

  /** Records an event; never blocks, never throws. */
  emit(e: EventSpec): void {
    const now = Date.now();
    const obj = `${e.regarding.kind}/${e.regarding.namespace}/${e.regarding.name}`;
    const key = `${obj}|${e.type}|${e.reason}|${e.note}`;
    const s = this.series.get(key);
    if (s && now - s.firstAt < SERIES_WINDOW_MS) {
      s.count += 1;
      if (s.name !== '' && now - s.patchedAt >= SERIES_PATCH_MS) {
        s.patchedAt = now;
        this.enqueue({ op: 'patch', key });
      }
      return;
    }
    if (!this.take(obj, now)) {
      this.dropped += 1;
      return;
    }
    if (this.series.size >= MAX_TRACKED) this.forgetOld(now);
    this.series.set(key, { name: '', namespace: e.regarding.namespace || 'default', count: 1, firstAt: now, patchedAt: now });
    this.enqueue({ op: 'create', key, body: this.body(e, now) });
  }

  /** Resolves when every queued write has been tried (for shutdown and tests). */
  async flush(): Promise<void> {
    while (this.working) await this.working;
  }

  private body(e: EventSpec, now: number): Event {
    const namespace = e.regarding.namespace || 'default';
    this.seq = (this.seq + 1) % 0xffff;
    return {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: `${e.regarding.name}.${(now * 1000 + this.seq).toString(16)}`, namespace },
      eventTime: microTime(now),
      reportingController: this.opts.controller,
      reportingInstance: this.opts.instance,
      action: e.action,
      reason: e.reason,
      type: e.type,
      note: e.note.length > 1000 ? `${e.note.slice(0, 999)}…` : e.note,
      regarding: { kind: e.regarding.kind, namespace, name: e.regarding.name, apiVersion: API_VERSIONS[e.regarding.kind] },
    };
  }

  /** Token bucket per object: `burst` at once, then one more every `refillMs`. */
  private take(obj: string, now: number): boolean {
    const burst = this.opts.burst ?? 25;
    const b = this.buckets.get(obj) ?? { tokens: burst, at: now };
    b.tokens = Math.min(burst, b.tokens + (now - b.at) / (this.opts.refillMs ?? 10_000));
    b.at = now;
    this.buckets.set(obj, b);
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }

  private forgetOld(now: number): void {
    for (const [k, s] of this.series) if (now - s.firstAt >= SERIES_WINDOW_MS) this.series.delete(k);
    if (this.buckets.size > MAX_TRACKED) this.buckets.clear();
  }

  private enqueue(job: Job): void {
    if (this.queue.length >= MAX_QUEUE) {
      this.dropped += 1;
      return;
    }
    this.queue.push(job);
    this.working ??= this.work().finally(() => {
      this.working = undefined;
    });
  }

  private async work(): Promise<void> {
    for (let job = this.queue.shift(); job; job = this.queue.shift()) {
      const s = this.series.get(job.key);
      try {
        if (job.op === 'create') {
          const made = await this.api.createNamespacedEvent({ namespace: job.body.metadata?.namespace ?? 'default', body: eventBody(job.body) });
          if (s) s.name = made.metadata?.name ?? '';
        } else if (s && s.name !== '') {
          await this.api.patchNamespacedEvent(
            { name: s.name, namespace: s.namespace, body: { series: { count: s.count, lastObservedTime: microTime(Date.now()) } } },
            setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
          );
        }
      } catch (err) {
        this.opts.log.debug({ err: errorMessage(err), dropped: this.dropped }, 'Event not written');
      }
    }
  }
}
