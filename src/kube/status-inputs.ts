// Reads what the status address is computed from and the store may not hold: the publish Service, our pods, nodes.
import { ApiException, CoreV1Api, type KubeConfig, type V1Node, type V1Pod, type V1Service } from '@kubernetes/client-node';
import type { Node, Pod, Service } from 'kubernetes-types/core/v1.js';
import type { Snapshot } from '../model/input.js';
import { controllerPods, statusAddresses, type StatusAddress } from '../status/address.js';

export interface AddressConfig {
  readonly publishStatusAddress: readonly string[];
  readonly publishService: { readonly namespace: string; readonly name: string } | undefined;
  readonly useInternalIp: boolean;
  readonly podName: string | undefined;
  readonly podNamespace: string | undefined;
}

function notFound(err: unknown): boolean {
  return err instanceof ApiException && err.code === 404;
}

/** Plain API-shaped copies (client-node's classes carry Date fields; the pure code reads the JSON shape). */
function plain(obj: V1Service | V1Pod | V1Node): unknown {
  return JSON.parse(JSON.stringify(obj));
}

/** Caches the API reads; `refresh()` renews them (every status period), `addresses()` combines them with the store. */
export class AddressInputs {
  private readonly core: CoreV1Api;
  private service: Service | undefined;
  private pods: Pod[] = [];
  private nodes: Node[] = [];
  private self: Pod | undefined;

  constructor(
    kc: KubeConfig,
    private readonly cfg: AddressConfig,
  ) {
    this.core = kc.makeApiClient(CoreV1Api);
  }

  /** Our own pod, read by refresh() (undefined outside a pod or before the first refresh). */
  get ownPod(): Pod | undefined {
    return this.self;
  }

  /** Re-reads from the API what the configured address source needs; throws on API errors other than 404. */
  async refresh(): Promise<void> {
    const { publishStatusAddress, publishService: ref, podName, podNamespace } = this.cfg;
    if (podName && podNamespace) {
      try {
        this.self = plain(await this.core.readNamespacedPod({ name: podName, namespace: podNamespace })) as Pod;
      } catch (err) {
        if (!notFound(err)) throw err;
        this.self = undefined;
      }
    }
    if (publishStatusAddress.length > 0) return;
    if (ref) {
      try {
        this.service = plain(await this.core.readNamespacedService(ref)) as Service;
      } catch (err) {
        if (!notFound(err)) throw err;
        this.service = undefined;
      }
      return;
    }
    this.pods = await this.replicas();
    const names = [...new Set(this.pods.map((p) => p.spec?.nodeName ?? '').filter((n) => n !== ''))];
    const nodes = await Promise.all(
      names.map((name) =>
        this.core.readNode({ name }).catch((err: unknown) => {
          if (notFound(err)) return undefined;
          throw err;
        }),
      ),
    );
    this.nodes = nodes.flatMap((n) => (n ? [plain(n) as Node] : []));
  }

  /** The pods of this controller (same labels as ours, in our namespace); [] when our pod is unknown. */
  async replicas(): Promise<Pod[]> {
    const self = this.self;
    const namespace = self?.metadata?.namespace;
    if (!self || !namespace) return [];
    const labels = Object.entries(self.metadata?.labels ?? {})
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
    const list = await this.core.listNamespacedPod({ namespace, ...(labels ? { labelSelector: labels } : {}) });
    return controllerPods(
      self,
      list.items.map((p) => plain(p) as Pod),
    );
  }

  /** The addresses now; the publish Service is taken from the store when it holds it (fresher than our read). */
  addresses(snapshot: Snapshot): StatusAddress[] | undefined {
    const ref = this.cfg.publishService;
    const stored = ref ? snapshot.services.find((s) => s.metadata?.namespace === ref.namespace && s.metadata.name === ref.name) : undefined;
    return statusAddresses({
      publishStatusAddress: this.cfg.publishStatusAddress,
      publishServiceSet: ref !== undefined,
      publishService: stored ?? this.service,
      pods: this.pods,
      nodes: this.nodes,
      useInternalIp: this.cfg.useInternalIp,
    });
  }
}
