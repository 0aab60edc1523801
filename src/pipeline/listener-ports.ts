// The Gateway listener port policy of a configuration: where listeners are served (--http-port, --https-port,
// --gateway-port-map, --gateway-h2c-ports) and the local ports they may not take (Portico's own, the tcp/udp-services ConfigMaps' keys).
import type { Config } from '../config/config.js';
import type { ListenerPortPolicy } from '../model/gateway/listener-ports.js';

export function listenerPortPolicy(config: Config): ListenerPortPolicy {
  const own: [number, string][] = [
    [config.healthzPort, '--healthz-port'],
    [config.statusPort, '--status-port'],
    ...(config.defaultServerPort === undefined ? [] : [[config.defaultServerPort, '--default-server-port'] as [number, string]]),
    ...(config.validatingWebhook === undefined ? [] : [[config.validatingWebhook.port, '--validating-webhook'] as [number, string]]),
  ];
  const stream = [
    ...(config.tcpServicesConfigmap ? [{ ...config.tcpServicesConfigmap, flag: '--tcp-services-configmap' }] : []),
    ...(config.udpServicesConfigmap ? [{ ...config.udpServicesConfigmap, flag: '--udp-services-configmap' }] : []),
  ];
  return Object.freeze({ ports: { httpPort: config.httpPort, httpsPort: config.httpsPort, ...config.gatewayPortMap, h2c: config.gatewayH2cPorts }, own, stream });
}
