// Cluster duties beside the data plane: leader election, Ingress and Gateway API status, and Events, hooked onto the controller.
import { modelOptions } from '../pipeline/build.js';
import { l4FlagsOf } from '../model/gateway/l4-routes.js';
import { hostname } from 'node:os';
import type { Config } from '../config/config.js';
import type { Logger } from '../log.js';
import type { Ingress } from '../model/input.js';
import { describeProblem, problemReason } from '../model/problems.js';
import { EventRecorder } from '../kube/events.js';
import { LeaderElector } from '../kube/leader.js';
import { StatusUpdater } from '../kube/status.js';
import { GatewayStatusWriter } from '../kube/gateway-status.js';
import { listenerPortPolicy } from '../pipeline/listener-ports.js';
import type { Controller } from './controller.js';
import type { Problem } from '../model/types.js';
import { HOST_CONFLICT } from '../model/hosts.js';
import { nsKey, refKey } from '../model/keys.js';

/** HTTPRoutes the model serves only in part (a match refused on a shared host, docs/adr/0017), with the first reason. */
function partlyServed(problems: readonly Problem[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const p of problems) {
    if (p.object.kind !== 'HTTPRoute' || !p.reason.includes(HOST_CONFLICT)) continue;
    const key = refKey(p.object.namespace, p.object.name);
    if (!out.has(key)) out.set(key, `${p.field}: ${p.reason}`);
  }
  return out;
}

/**
 * What a `Sync` Event announces: the Ingress as configured (spec: generation; annotations), not its status, so the
 * leader's own status writes do not announce the same configuration again. resourceVersion when there is no generation.
 */
export function configuredVersion(ing: Ingress | undefined): string | undefined {
  const meta = ing?.metadata;
  if (meta?.generation === undefined) return meta?.resourceVersion;
  return `${meta.generation}|${JSON.stringify(meta.annotations ?? {})}`;
}

/** The API connection, as src/kube hands it out (only src/kube names client-node's types). */
export type KubeConnection = ConstructorParameters<typeof LeaderElector>[0]['kc'];

export interface Duties {
  /** Clears status if this is the last replica (--update-status-on-shutdown), releases the Lease, flushes Events. */
  stop(): Promise<void>;
  /** Whether this replica holds the Lease (nginx_ingress_controller_leader_election_status); absent without election. */
  leading?(): boolean;
}

/**
 * Events: a Warning for every problem the model reports, `Sync` on each Ingress whose new version nginx now serves,
 * `RELOAD` on this pod when nginx reloads. With --update-status, Lease election and the status writer.
 */
export async function startDuties(kc: KubeConnection, config: Config, ctl: Controller, log: Logger): Promise<Duties> {
  const instance = config.podName ?? `${hostname()}-${process.pid}`;
  const events = new EventRecorder({ kc, log, controller: config.controllerClass, instance });
  ctl.problems.addSink((p) => {
    events.emit({ regarding: p.object, type: 'Warning', reason: problemReason(p), action: 'Validate', note: describeProblem(p) });
  });
  const announced = new Map<string, string | undefined>();
  ctl.applied.push(({ model, reloaded }) => {
    const byKey = new Map(ctl.store.snapshot().ingresses.map((i) => [nsKey(i), i]));
    for (const ref of model.ingresses) {
      const key = refKey(ref.namespace, ref.name);
      const version = configuredVersion(byKey.get(key));
      if (announced.has(key) && announced.get(key) === version) continue;
      announced.set(key, version);
      if (config.disableSyncEvents) continue;
      events.emit({ regarding: ref, type: 'Normal', reason: 'Sync', action: 'Sync', note: 'Configuration applied: nginx serves this Ingress' });
    }
    if (reloaded && config.podName && config.podNamespace) {
      events.emit({
        regarding: { kind: 'Pod', namespace: config.podNamespace, name: config.podName },
        type: 'Normal',
        reason: 'RELOAD',
        action: 'Reload',
        note: 'nginx reloaded with a new configuration',
      });
    }
  });
  if (!config.updateStatus) return { stop: () => events.flush() };
  // The writer asks the elector at every write, so it stops writing the moment the Lease is lost.
  const writer: StatusUpdater = new StatusUpdater({
    kc,
    log,
    isLeader: () => leader.isLeader,
    publishStatusAddress: config.publishStatusAddress,
    publishService: config.publishService,
    useInternalIp: config.reportNodeInternalIp,
    podName: config.podName,
    podNamespace: config.podNamespace,
  });
  // Gateway API status (GatewayClass, Gateway with the Ingress status addresses, HTTPRoute parents) by the same leader.
  const gateways = config.enableGatewayApi
    ? new GatewayStatusWriter({
        kc,
        log,
        isLeader: () => leader.isLeader,
        controllerName: config.gatewayControllerName,
        experimental: config.gatewayApiExperimentalFeatures,
        addresses: (snap) => writer.inputs.addresses(snap),
        staticAddresses: config.gatewayStaticAddresses,
        l4: l4FlagsOf(modelOptions(config)),
        ports: listenerPortPolicy(config),
      })
    : undefined;
  const leader: LeaderElector = new LeaderElector({
    kc,
    log,
    namespace: config.podNamespace ?? 'default',
    name: config.electionId,
    identity: instance,
    ttlMs: config.electionTtlMs,
    onChange: (leading) => {
      writer.leadershipChanged(leading);
      gateways?.leadershipChanged(leading);
    },
  });
  ctl.applied.push(({ model }) => {
    const snap = ctl.store.snapshot();
    writer.update(snap, model.ingresses);
    gateways?.update(snap, partlyServed(model.problems));
  });
  await writer.start();
  await gateways?.start();
  leader.start();
  return {
    leading: () => leader.isLeader,
    stop: async () => {
      await writer.stop(config.updateStatusOnShutdown);
      await gateways?.stop();
      await leader.stop(true);
      await events.flush();
    },
  };
}
