// The conformance suite's base objects (conformance/base/manifests.yaml at v1.6.1, read for names only), written
// for local mode: three namespaces, the Gateways the tests attach to, and the backend Services, each Service's one
// EndpointSlice pointing at a local echo backend on 127.0.0.1.
import type { Pem } from '../support/certs.js';
import { service, slice } from '../support/objects.js';
import { tlsSecret } from '../support/tls-manifests.js';
import { PORTICO_GATEWAY_CONTROLLER } from '../support/gateway.js';

export const INFRA_NS = 'gateway-conformance-infra';
export const APP_NS = 'gateway-conformance-app-backend';
export const WEB_NS = 'gateway-conformance-web-backend';
const GATEWAY_CLASS = 'portico-conformance';
const V1 = 'gateway.networking.k8s.io/v1';

/** The backend Services of the base manifests, by namespace (all on port 8080). */
export const BACKENDS: readonly { readonly name: string; readonly namespace: string }[] = [
  { name: 'infra-backend-v1', namespace: INFRA_NS },
  { name: 'infra-backend-v2', namespace: INFRA_NS },
  { name: 'infra-backend-v3', namespace: INFRA_NS },
  { name: 'app-backend-v1', namespace: APP_NS },
  { name: 'app-backend-v2', namespace: APP_NS },
  { name: 'web-backend', namespace: WEB_NS },
];

const SERVICE_PORT = 8080;
/** infra-backend-v1's ports with an appProtocol, as the base manifests have them. */
const APP_PROTOCOL_PORTS = [
  { name: 'second-port', port: 8081, appProtocol: 'kubernetes.io/h2c' },
  { name: 'third-port', port: 8082, appProtocol: 'kubernetes.io/ws' },
];

function ns(name: string, label: string): unknown {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { 'gateway-conformance': label, 'kubernetes.io/metadata.name': name } } };
}

function http(name: string, from: Record<string, unknown>): unknown {
  return {
    apiVersion: V1,
    kind: 'Gateway',
    metadata: { name, namespace: INFRA_NS },
    spec: { gatewayClassName: GATEWAY_CLASS, listeners: [{ name: 'http', port: 80, protocol: 'HTTP', allowedRoutes: { namespaces: from } }] },
  };
}

/** same-namespace-with-https-listener: four HTTPS listeners on 443 sharing the certificate `tls-validity-checks-certificate`. */
function httpsGateway(): unknown {
  const listener = (name: string, hostname?: string): unknown => ({
    name,
    port: 443,
    protocol: 'HTTPS',
    ...(hostname === undefined ? {} : { hostname }),
    allowedRoutes: { namespaces: { from: 'Same' } },
    tls: { certificateRefs: [{ group: '', kind: 'Secret', name: 'tls-validity-checks-certificate', namespace: INFRA_NS }] },
  });
  return {
    apiVersion: V1,
    kind: 'Gateway',
    metadata: { name: 'same-namespace-with-https-listener', namespace: INFRA_NS },
    spec: {
      gatewayClassName: GATEWAY_CLASS,
      listeners: [
        listener('https'),
        listener('https-with-hostname', 'second-example.org'),
        listener('https-with-wildcard-hostname', '*.wildcard.org'),
        listener('https-with-hostname-matching-wildcard', 'fourth-example.wildcard.org'),
      ],
    },
  };
}

/**
 * Every base object; `ports` maps `namespace/service` to its echo backend's port; `cert` serves the HTTPS Gateway and
 * is the web namespace's Secret `certificate`; `h2cPort`: an h2c echo (h2c-echo.ts) behind infra-backend-v1's h2c port
 * (else the HTTP/1.1 echo, as before).
 */
export function baseObjects(ports: ReadonlyMap<string, number>, cert: Pick<Pem, 'cert' | 'key'>, h2cPort?: number): unknown[] {
  const services = BACKENDS.flatMap(({ name, namespace }) => {
    const port = ports.get(`${namespace}/${name}`);
    if (port === undefined) throw new Error(`no echo backend for ${namespace}/${name}`);
    const own = [service(name, namespace, [{ name: 'http', port: SERVICE_PORT }]), slice(name, port, ['127.0.0.1'], { namespace, portName: 'http' })];
    if (name !== 'infra-backend-v1') return own;
    // infra-backend-v1's further ports: h2c and WebSocket (the backend protocol tests), served by the same echo.
    const svc = service(name, namespace, [{ name: 'http', port: SERVICE_PORT }, ...APP_PROTOCOL_PORTS]);
    const at = (p: { appProtocol: string }): number => (p.appProtocol === 'kubernetes.io/h2c' ? (h2cPort ?? port) : port);
    return [svc, own[1], ...APP_PROTOCOL_PORTS.map((p) => slice(name, at(p), ['127.0.0.1'], { namespace, portName: p.name, name: `${name}-${p.name}` }))];
  });
  return [
    ns(INFRA_NS, 'infra'),
    ns(APP_NS, 'backend'),
    ns(WEB_NS, 'backend'),
    { apiVersion: V1, kind: 'GatewayClass', metadata: { name: GATEWAY_CLASS }, spec: { controllerName: PORTICO_GATEWAY_CONTROLLER } },
    http('same-namespace', { from: 'Same' }),
    http('all-namespaces', { from: 'All' }),
    http('backend-namespaces', { from: 'Selector', selector: { matchLabels: { 'gateway-conformance': 'backend' } } }),
    httpsGateway(),
    tlsSecret('tls-validity-checks-certificate', cert, INFRA_NS),
    tlsSecret('certificate', cert, WEB_NS),
    ...services,
  ];
}
