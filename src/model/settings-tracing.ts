// OpenTelemetry tracing settings (ingress-nginx's enable-opentelemetry, otlp-* and otel-* keys), with its defaults.

export type TracingSampler = 'AlwaysOn' | 'AlwaysOff' | 'TraceIdRatioBased';

/** The global ConfigMap's tracing keys; the exporter and sampler are the same for every location (docs/adr/0018). */
export interface TracingGlobals {
  readonly enableOpentelemetry: boolean;
  readonly opentelemetryTrustIncomingSpan: boolean;
  /** The server span's name; '' : `<METHOD> <path of the location>`. */
  readonly opentelemetryOperationName: string;
  /** Host name or IP address of the OTLP collector; undefined: spans are made for the logs but never exported. */
  readonly otlpCollectorHost: string | undefined;
  /** As written; 4317 (OTLP/gRPC, ingress-nginx's default) is exported to 4318, OTLP/HTTP (docs/adr/0018). */
  readonly otlpCollectorPort: number;
  readonly otelServiceName: string;
  readonly otelSampler: TracingSampler;
  readonly otelSamplerRatio: number;
  readonly otelSamplerParentBased: boolean;
  readonly otelMaxQueuesize: number;
  readonly otelScheduleDelayMillis: number;
  readonly otelMaxExportBatchSize: number;
}

/** ingress-nginx v1.15's defaults (internal/ingress/controller/config/config.go). */
export const TRACING_GLOBAL_DEFAULTS: TracingGlobals = Object.freeze({
  enableOpentelemetry: false,
  opentelemetryTrustIncomingSpan: true,
  opentelemetryOperationName: '',
  otlpCollectorHost: undefined,
  otlpCollectorPort: 4317,
  otelServiceName: 'nginx',
  otelSampler: 'AlwaysOn',
  otelSamplerRatio: 0.01,
  otelSamplerParentBased: true,
  otelMaxQueuesize: 2048,
  otelScheduleDelayMillis: 5000,
  otelMaxExportBatchSize: 512,
});

/** The OTLP/gRPC port of ingress-nginx's default and the OTLP/HTTP port Portico exports to instead. */
export const OTLP_GRPC_PORT = 4317;
export const OTLP_HTTP_PORT = 4318;

/** The port spans are POSTed to. */
export function exportPort(g: Pick<TracingGlobals, 'otlpCollectorPort'>): number {
  return g.otlpCollectorPort === OTLP_GRPC_PORT ? OTLP_HTTP_PORT : g.otlpCollectorPort;
}

/**
 * The tracing annotations of one Ingress, as ingress-nginx reads them: `enabled` when enable-opentelemetry is set
 * (true or false, which overrides the ConfigMap either way); trust and operation name only read when it is true.
 */
export interface LocationTracing {
  readonly enabled?: boolean;
  readonly trustIncomingSpan?: boolean;
  readonly operationName?: string;
}

/** What one location does: undefined when it does not trace. */
export interface ResolvedTracing {
  readonly trust: boolean;
  readonly operationName: string;
}

export function resolveTracing(g: TracingGlobals, l: LocationTracing | undefined): ResolvedTracing | undefined {
  const on = l?.enabled ?? g.enableOpentelemetry;
  if (!on) return undefined;
  const own = l?.enabled === true ? l : undefined;
  return { trust: own?.trustIncomingSpan ?? g.opentelemetryTrustIncomingSpan, operationName: own?.operationName ?? g.opentelemetryOperationName };
}
