// The Gateway API resources Portico lists and watches: read through the custom-objects API, since client-node has no typed client for them.
import type { KubernetesListObject, KubernetesObject } from '@kubernetes/client-node';
import type { Apis, ListPage, Resource } from './resources.js';
import type { Kind } from '../store/kinds.js';

const GROUP = 'gateway.networking.k8s.io';

function customList(version: string, plural: string, namespaced: boolean): (apis: Apis) => ListPage {
  return ({ custom }) =>
    async (namespace, q) => {
      const query = { group: GROUP, version, plural, ...q };
      const res: unknown =
        namespaced && namespace
          ? await custom.listNamespacedCustomObject({ ...query, namespace })
          : namespaced
            ? await custom.listCustomObjectForAllNamespaces(query)
            : await custom.listClusterCustomObject(query);
      return res as KubernetesListObject<KubernetesObject>;
    };
}

function resource(kind: Kind, version: string, plural: string, namespaced: boolean): Resource {
  return { feed: kind, kind, group: GROUP, version, plural, namespaced, optional: true, list: customList(version, plural, namespaced) };
}

/**
 * GatewayClass, Gateway, HTTPRoute, GRPCRoute, BackendTLSPolicy, TLSRoute, TCPRoute, UDPRoute and ListenerSet at v1; ReferenceGrant at v1 (served from Gateway API v1.5), else at v1beta1
 * (every release, and the CRDs deploy/gateway-api/ ships). Optional: a cluster without the CRDs answers 404 and
 * Portico serves Ingresses alone.
 */
export const GATEWAY_RESOURCES: readonly Resource[] = Object.freeze([
  resource('GatewayClass', 'v1', 'gatewayclasses', false),
  resource('Gateway', 'v1', 'gateways', true),
  resource('HTTPRoute', 'v1', 'httproutes', true),
  resource('GRPCRoute', 'v1', 'grpcroutes', true),
  resource('BackendTLSPolicy', 'v1', 'backendtlspolicies', true),
  resource('TLSRoute', 'v1', 'tlsroutes', true),
  resource('TCPRoute', 'v1', 'tcproutes', true),
  resource('UDPRoute', 'v1', 'udproutes', true),
  resource('ListenerSet', 'v1', 'listenersets', true),
  { ...resource('ReferenceGrant', 'v1', 'referencegrants', true), fallback: resource('ReferenceGrant', 'v1beta1', 'referencegrants', true) },
]);
