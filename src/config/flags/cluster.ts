// The flags that say where Kubernetes objects come from and which of them are Portico's.
import { optional, optionalPlain, plain, text, toggle } from '../flag.js';
import { parseAddressList, parseControllerName, parseObjectRef, parsePortList } from '../values.js';
import { parseGatewayPortMap } from '../port-map.js';

/** `namespace/name`, checked, kept as the text. */
const objectRefText = (flag: string, t: string): string => {
  parseObjectRef(flag, t);
  return t;
};

export const CLUSTER_FLAGS = {
  manifests: optionalPlain('manifests', 'local mode: a folder of Kubernetes manifests instead of a cluster'),
  /** The kubeconfig file: the flag, else $KUBECONFIG unless --manifests is given; undefined: in-cluster. */
  kubeconfig: text('kubeconfig', '', 'path to a kubeconfig file (default: $KUBECONFIG, else in-cluster)', (_flag, t, ctx): string | undefined => {
    if (t !== '') return t;
    const manifests = ctx.given('manifests');
    return typeof manifests === 'string' && manifests !== '' ? undefined : ctx.env['KUBECONFIG'] || undefined;
  }),
  apiserverHost: optionalPlain('apiserver-host', 'address of the Kubernetes API server, overriding the kubeconfig'),
  watchNamespace: optionalPlain('watch-namespace', 'watch only this namespace (default: all)'),
  watchNamespaceSelector: optionalPlain('watch-namespace-selector', 'watch only namespaces matching this label selector'),
  configmap: optional('configmap', 'namespace/name of the global ConfigMap', objectRefText),
  controllerClass: plain('controller-class', 'portico.dev/ingress-controller', 'IngressClass spec.controller handled'),
  ingressClass: plain('ingress-class', 'portico', 'legacy kubernetes.io/ingress.class annotation value handled'),
  watchIngressWithoutClass: toggle('watch-ingress-without-class', false, 'also serve Ingresses that name no class'),
  /** --ingress-class-by-name: an Ingress whose ingressClassName is --ingress-class is ours, whatever that class's controller. */
  ingressClassByName: toggle('ingress-class-by-name', false, 'also serve Ingresses whose spec.ingressClassName is --ingress-class, whatever controller that IngressClass names'),
  /** --disable-catch-all: Ingresses with a spec.defaultBackend are ignored whole, as ingress-nginx's store ignores them. */
  disableCatchAll: toggle('disable-catch-all', false, 'ignore every Ingress that has a spec.defaultBackend (its rules too), so no tenant can take the catch-all server'),
  /** --disable-svc-external-name: ExternalName Services are not resolved and get no endpoints (docs/adr/0019). */
  disableSvcExternalName: toggle(
    'disable-svc-external-name',
    false,
    'ignore Services of type ExternalName: paths to them answer 503 (else Portico resolves the name and proxies to the addresses the target policy allows)',
  ),
  /** Watch and serve Gateway API objects (docs/gateway-api.md). */
  enableGatewayApi: toggle(
    'enable-gateway-api',
    true,
    'serve Gateway API HTTPRoutes, GRPCRoutes, TLSRoutes, TCPRoutes and UDPRoutes of GatewayClasses whose controllerName is --gateway-controller-name (docs/gateway-api.md)',
  ),
  /** Experimental-channel Gateway API CRDs count as supported (status/gateway-version.ts, docs/adr/0025-gateway-api-version-pin.md). */
  gatewayApiExperimentalFeatures: toggle(
    'gateway-api-experimental-features',
    false,
    'accept the experimental channel of the Gateway API CRDs (GatewayClass SupportedVersion True); off: only the standard channel is supported (docs/gateway-api.md)',
  ),
  /** The GatewayClass spec.controllerName Portico handles. */
  gatewayControllerName: text('gateway-controller-name', 'portico.dev/gateway-controller', 'GatewayClass spec.controllerName handled', parseControllerName),
  /** Gateway listener ports served on other local ports (model/gateway/ports.ts); 80 and 443 are --http-port and --https-port. */
  gatewayPortMap: text(
    'gateway-port-map',
    '',
    '[NAMESPACE/NAME:]LISTENER_PORT=LOCAL_PORT[,...]: the Gateway listener ports Portico opens besides HTTP 80 and HTTPS 443 (--http-port, --https-port), each on the local port given (the same number, or another); a listener on a port not listed is not served (PortUnavailable). An entry with NAMESPACE/NAME holds for that Gateway only and wins over the generic one, 80 and 443 included: that Gateway is served on local ports of its own, behind a Service of its own (docs/gateway-api.md)',
    parseGatewayPortMap,
  ),
  /** Local ports whose plain listens speak HTTP/2 with prior knowledge only (h2c): GRPCRoute on HTTP listeners (docs/adr/0029). */
  gatewayH2cPorts: text(
    'gateway-h2c-ports',
    '',
    'LOCAL_PORT[,...]: local ports (--http-port, or a LOCAL_PORT of --gateway-port-map) that speak HTTP/2 cleartext with prior knowledge (h2c) and no HTTP/1.x: HTTP listeners served there admit GRPCRoutes. Everything on such a port is HTTP/2 only; naming --http-port makes every Ingress and HTTPRoute on it refuse HTTP/1.1 clients (docs/gateway-api.md)',
    parsePortList,
  ),
  /** Addresses a Gateway's spec.addresses may claim besides Portico's own, one namespace each (status/gateway-addresses.ts, docs/adr/0037). */
  gatewayStaticAddresses: text(
    'gateway-static-addresses',
    '',
    "IP[,HOSTNAME...]: addresses on which Portico's traffic ports are reachable (a second load-balancer address, a node address) that a Gateway may claim in spec.addresses besides Portico's own (--publish-status-address, --publish-service); the oldest Gateway asking for one holds it and Gateways of other namespaces asking for it are not Programmed (AddressNotUsable). Every Gateway is still served on every traffic address (docs/gateway-api.md)",
    parseAddressList,
  ),
  defaultBackendService: optional('default-backend-service', 'namespace/name of the Service for unmatched requests', parseObjectRef),
  defaultSslCertificate: optional('default-ssl-certificate', 'namespace/name of the TLS Secret for hosts without their own certificate', parseObjectRef),
  /** The stream services ConfigMaps (model/stream.ts). */
  tcpServicesConfigmap: optional('tcp-services-configmap', 'namespace/name of the ConfigMap of TCP services: port → namespace/service:port[:PROXY[:PROXY]]', parseObjectRef),
  udpServicesConfigmap: optional('udp-services-configmap', 'namespace/name of the ConfigMap of UDP services: port → namespace/service:port', parseObjectRef),
};
