// Reads the installed Gateway API CRDs' bundle-version annotations, for GatewayClass SupportedVersion (the
// specification: set with Accepted; False when a CRD lacks the annotation or has a version not supported).
import { ApiException, ApiextensionsV1Api, type KubeConfig } from '@kubernetes/client-node';
import { GATEWAY_CRD_NAMES } from '../status/gateway.js';

const ANNOTATION = 'gateway.networking.k8s.io/bundle-version';

/** CRD name → its bundle version (undefined: not installed, or no annotation). Throws on API errors other than 404. */
export async function readBundleVersions(kc: KubeConfig): Promise<Map<string, string | undefined>> {
  const api = kc.makeApiClient(ApiextensionsV1Api);
  const out = new Map<string, string | undefined>();
  for (const name of GATEWAY_CRD_NAMES) {
    try {
      const crd = await api.readCustomResourceDefinition({ name });
      out.set(name, crd.metadata?.annotations?.[ANNOTATION]);
    } catch (err) {
      if (!(err instanceof ApiException && err.code === 404)) throw err;
      out.set(name, undefined);
    }
  }
  return out;
}
