// The flags of what Portico listens on: traffic, health, nginx's configuration endpoint, the webhook, the dashboard.
import { optional, optionalPlain, plain, text, toggle } from '../flag.js';
import { parseHost, parseListenAddress, parsePort } from '../values.js';

export const LISTEN_FLAGS = {
  httpPort: text('http-port', '80', 'port for HTTP traffic', parsePort),
  httpsPort: text('https-port', '443', 'port for HTTPS traffic', parsePort),
  healthzPort: text('healthz-port', '10254', 'port of /healthz, /metrics and /debug', parsePort),
  /** Address the healthz port binds; '' means every address (kubelet probes and Prometheus reach it). */
  healthzHost: text('healthz-host', '', 'address the healthz port binds (default: all addresses)', parseHost),
  /** Whether /debug/* answers peers other than loopback (docs/adr/0009). */
  debugRemoteAccess: toggle('debug-remote-access', false, 'answer /debug/* to peers other than loopback (default: 403 to them)'),
  statusPort: text('status-port', '10246', "port of nginx's internal configuration endpoint (127.0.0.1)", parsePort),
  /** Port of the built-in default backend server; undefined: not opened (nginx answers unmatched requests itself). */
  defaultServerPort: optional('default-server-port', 'port of the built-in default backend on 127.0.0.1 (404, /healthz 200); not opened unless given, so instances never collide on it', parsePort),
  listenAddress: plain('listen-address', '', 'address for the traffic ports (default: all addresses)'),
  validatingWebhook: optional('validating-webhook', 'address of the validating admission webhook, e.g. :8443 (off when empty)', parseListenAddress),
  validatingWebhookCertificate: optionalPlain('validating-webhook-certificate', "PEM certificate file of the webhook's HTTPS server"),
  validatingWebhookKey: optionalPlain('validating-webhook-key', "PEM key file of the webhook's HTTPS server"),
  /** ssl_preread in front of the HTTPS port; the annotation is ignored with a Warning without it. */
  enableSslPassthrough: toggle('enable-ssl-passthrough', false, 'honour the ssl-passthrough annotation: nginx reads the SNI on the HTTPS port in front of the HTTPS server'),
  /** The read-only page at /dashboard on the healthz port. */
  enableDashboard: toggle('enable-dashboard', true, 'the read-only dashboard at /dashboard on the healthz port'),
};
