// Reads the installed Gateway API CRDs' bundle-version and channel annotations, for GatewayClass SupportedVersion (the
// specification: set with Accepted; False when a CRD lacks the annotation or has a version not supported).
import { ApiException, ApiextensionsV1Api, type KubeConfig } from '@kubernetes/client-node';
import { GATEWAY_CRD_NAMES, type CrdBundle } from '../status/gateway-version.js';

const VERSION = 'gateway.networking.k8s.io/bundle-version';
const CHANNEL = 'gateway.networking.k8s.io/channel';

/** CRD name → its bundle version and channel (undefined: not installed). Throws on API errors other than 404. */
export async function readBundleVersions(kc: KubeConfig): Promise<Map<string, CrdBundle | undefined>> {
  const api = kc.makeApiClient(ApiextensionsV1Api);
  // one GET per CRD, side by side (RBAC grants get, not list, on customresourcedefinitions)
  const read = async (name: string): Promise<CrdBundle | undefined> => {
    try {
      const annotations = (await api.readCustomResourceDefinition({ name })).metadata?.annotations ?? {};
      return { version: annotations[VERSION], channel: annotations[CHANNEL] };
    } catch (err) {
      if (!(err instanceof ApiException && err.code === 404)) throw err;
      return undefined;
    }
  };
  const got = await Promise.all(GATEWAY_CRD_NAMES.map(read));
  return new Map(GATEWAY_CRD_NAMES.map((name, i) => [name, got[i]] as const));
}
