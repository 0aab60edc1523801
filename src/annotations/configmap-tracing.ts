// The OpenTelemetry keys of the global ConfigMap, with ingress-nginx's names, defaults and validation (docs/adr/0018).
import { OTLP_GRPC_PORT, OTLP_HTTP_PORT, type TracingSampler } from '../model/settings-tracing.js';
import type { KeySpec } from './configmap.js';
import { key } from './configmap-key.js';
import * as v from './values.js';

/** ingress-nginx's rule for operation names (its opentelemetry annotation parser), at most 128 characters. */
export const operationName: v.Parser<string> = (raw) => (/^[A-Za-z0-9_-]{0,128}$/.test(raw) ? v.ok(raw) : v.bad(`${v.show(raw)} is not an operation name (letters, digits, '_' and '-')`));

const IPV4 = /^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}$/;
/** A DNS name or an IPv4 address: Lua connects to it (a name through nginx's resolver). */
const collectorHost: v.Parser<string | undefined> = (raw) => {
  const host = raw.toLowerCase();
  return IPV4.test(host) || v.hostname(host).ok ? v.ok(host) : v.bad(`${v.show(raw)} is not a host name or an IPv4 address`);
};
const ratio: v.Parser<number> = (raw) => {
  const n = Number(raw);
  return /^\d*\.?\d+$|^\d+\.$/.test(raw) && n >= 0 && n <= 1 ? v.ok(n) : v.bad(`${v.show(raw)} is not a ratio from 0 to 1`);
};
const serviceName: v.Parser<string> = (raw) => (/^[\x20-\x7e]{1,255}$/.test(raw) ? v.ok(raw) : v.bad(`${v.show(raw)} is not a service name (printable ASCII, at most 255)`));
const sampler: v.Parser<TracingSampler> = v.oneOf<TracingSampler>(['AlwaysOn', 'AlwaysOff', 'TraceIdRatioBased']);

/** Spliced into CONFIGMAP_KEYS. */
export const TRACING_CONFIGMAP_KEYS: readonly KeySpec[] = [
  key('enable-opentelemetry', 'enableOpentelemetry', 'false', 'Traces every request with a server span (Lua, OTLP/HTTP export; the enable-opentelemetry annotation overrides it per Ingress).', v.bool),
  key('opentelemetry-trust-incoming-span', 'opentelemetryTrustIncomingSpan', 'true', "Continues a client's W3C traceparent instead of starting a new trace.", v.bool),
  key('opentelemetry-operation-name', 'opentelemetryOperationName', '', 'Name of the server span (default: the method and the Ingress path, e.g. `GET /api`).', operationName),
  key('otlp-collector-host', 'otlpCollectorHost', '', 'Host name or IPv4 address of the OTLP collector (none: spans are not exported).', collectorHost),
  key('otlp-collector-port', 'otlpCollectorPort', '4317', 'Port of the collector; Portico exports OTLP/HTTP, and 4317 (the OTLP/gRPC port) means 4318 (docs/adr/0018).', v.int(1, 65535)),
  key('otel-service-name', 'otelServiceName', 'nginx', 'service.name of the spans.', serviceName),
  key('otel-sampler', 'otelSampler', 'AlwaysOn', 'AlwaysOn, AlwaysOff or TraceIdRatioBased.', sampler),
  key('otel-sampler-ratio', 'otelSamplerRatio', '0.01', 'Share of traces TraceIdRatioBased samples (0 to 1).', ratio),
  key('otel-sampler-parent-based', 'otelSamplerParentBased', 'true', "A trusted incoming span's sampled flag decides instead of the sampler.", v.bool),
  key('otel-max-queuesize', 'otelMaxQueuesize', '2048', 'Spans each nginx worker holds for export; more are dropped and counted.', v.int(1, 100_000)),
  key('otel-schedule-delay-millis', 'otelScheduleDelayMillis', '5000', 'Milliseconds between two exports of a worker.', v.int(100, 3_600_000)),
  key('otel-max-export-batch-size', 'otelMaxExportBatchSize', '512', 'Spans per export request (at most otel-max-queuesize).', v.int(1, 100_000)),
];

/** Notes logged with the ConfigMap's no-ops: how a port written for OTLP/gRPC is read (docs/adr/0018). */
export function tracingNotices(g: { readonly otlpCollectorHost: string | undefined; readonly otlpCollectorPort: number }): { key: string; reason: string }[] {
  if (g.otlpCollectorHost === undefined || g.otlpCollectorPort !== OTLP_GRPC_PORT) return [];
  return [{ key: 'otlp-collector-port', reason: `${OTLP_GRPC_PORT} is the OTLP/gRPC port; Portico exports OTLP/HTTP, to port ${OTLP_HTTP_PORT} of the same host (docs/adr/0018)` }];
}
