// OpenTelemetry tracing's pure parts (docs/adr/0018): the ConfigMap keys with ingress-nginx's defaults and checks, the
// annotations as ingress-nginx reads them, the nginx.conf lines (none when no location traces), the /metrics text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { parseConfigMap } from '../../src/annotations/configmap.js';
import { GLOBAL_DEFAULTS } from '../../src/model/settings.js';
import { parseAnnotations } from '../../src/annotations/parse.js';
import { buildModel } from '../../src/model/build.js';
import type { ModelOptions } from '../../src/model/input.js';
import { exportPort, resolveTracing } from '../../src/model/settings-tracing.js';
import { tracingExposition } from '../../src/metrics/tracing.js';
import { renderNginxConf, type RenderOptions } from '../../src/render/nginx-conf.js';
import { fixtureCases, loadSnapshot } from '../support/fixtures.js';

const P = 'nginx.ingress.kubernetes.io';
const OPTS = { prefix: P, riskLevel: 'Critical' as const, allowSnippets: false, namespace: 'ns' };
const MODEL: ModelOptions = {
  controllerClass: 'portico.dev/ingress-controller',
  ingressClass: 'portico',
  watchIngressWithoutClass: false,
  defaultBackendService: undefined,
  loadBalance: 'round_robin',
};
const RENDER: RenderOptions = {
  workDir: '/var/lib/portico',
  luaDir: '/usr/share/portico/lua',
  httpPort: 80,
  httpsPort: 443,
  statusPort: 10246,
  defaultServerPort: 8181,
  listenAddress: '',
  user: undefined,
  workerProcesses: 'auto',
};
const basic = fixtureCases('render').find((d) => d.endsWith('basic')) ?? join('test', 'fixtures', 'render', 'basic');

void test("ingress-nginx v1.15's defaults; 4317 is exported to 4318, any other port as written", () => {
  const g = parseConfigMap({}).settings;
  assert.deepEqual(
    [
      g.enableOpentelemetry,
      g.opentelemetryTrustIncomingSpan,
      g.otlpCollectorPort,
      g.otelServiceName,
      g.otelSampler,
      g.otelSamplerRatio,
      g.otelSamplerParentBased,
      g.otelMaxQueuesize,
      g.otelScheduleDelayMillis,
      g.otelMaxExportBatchSize,
    ],
    [false, true, 4317, 'nginx', 'AlwaysOn', 0.01, true, 2048, 5000, 512],
  );
  assert.equal(exportPort(g), 4318);
  assert.equal(exportPort({ otlpCollectorPort: 14318 }), 14318);
});

void test('each key is checked; a bad value is refused with the reason and keeps the previous one', () => {
  const good = parseConfigMap({ 'enable-opentelemetry': 'true', 'otlp-collector-host': 'Otel.Observability.svc', 'otel-sampler-ratio': '.5', 'otel-service-name': 'edge proxy' });
  assert.deepEqual(good.errors, []);
  assert.deepEqual([good.settings.otlpCollectorHost, good.settings.otelSamplerRatio, good.settings.otelServiceName], ['otel.observability.svc', 0.5, 'edge proxy']);
  const bad = parseConfigMap(
    {
      'otlp-collector-host': 'a b',
      'otlp-collector-port': '70000',
      'otel-sampler': 'alwayson',
      'otel-sampler-ratio': '2',
      'otel-max-queuesize': '0',
      'opentelemetry-operation-name': 'GET /x',
      'otel-service-name': 'line\nbreak',
    },
    good.settings,
  );
  assert.deepEqual(
    bad.errors.map((e) => e.key),
    ['opentelemetry-operation-name', 'otel-max-queuesize', 'otel-sampler', 'otel-sampler-ratio', 'otel-service-name', 'otlp-collector-host', 'otlp-collector-port'],
  );
  assert.equal(bad.settings.otlpCollectorHost, 'otel.observability.svc', 'the previous value stays');
  assert.deepEqual(
    parseConfigMap({ 'opentelemetry-config': '/etc/x.toml' }).noops.map((n) => n.key),
    ['opentelemetry-config'],
  );
  assert.deepEqual(
    parseConfigMap({ 'otlp-collector-host': '10.0.0.9' }).noops.map((n) => n.key),
    ['otlp-collector-port'],
    'the 4317 notice, only with a collector',
  );
});

void test('annotations as ingress-nginx reads them: "false" turns the ConfigMap off; trust and name only count with "true"', () => {
  const on = { ...GLOBAL_DEFAULTS, enableOpentelemetry: true, opentelemetryOperationName: 'global' };
  const tracing = (a: Record<string, string>) => parseAnnotations(Object.fromEntries(Object.entries(a).map(([k, v]) => [`${P}/${k}`, v])), OPTS).settings.location.tracing;
  assert.equal(resolveTracing(on, tracing({ 'enable-opentelemetry': 'false' })), undefined);
  assert.equal(resolveTracing(GLOBAL_DEFAULTS, tracing({})), undefined);
  assert.deepEqual(resolveTracing(on, tracing({})), { trust: true, operationName: 'global' });
  assert.deepEqual(resolveTracing(on, tracing({ 'opentelemetry-trust-incoming-span': 'false', 'opentelemetry-operation-name': 'mine' })), { trust: true, operationName: 'global' });
  assert.deepEqual(resolveTracing(GLOBAL_DEFAULTS, tracing({ 'enable-opentelemetry': 'true', 'opentelemetry-trust-incoming-span': 'false', 'opentelemetry-operation-name': 'mine' })), {
    trust: false,
    operationName: 'mine',
  });
  const refused = parseAnnotations({ [`${P}/enable-opentelemetry`]: 'yes', [`${P}/opentelemetry-operation-name`]: 'a"b' }, OPTS);
  assert.deepEqual(
    refused.errors.map((e) => e.reason),
    ['"yes" is not a boolean (true or false)', `"a\\"b" is not an operation name (letters, digits, '_' and '-')`],
  );
});

void test('nginx.conf: no tracing line when no location traces; hooks, variables and exporter settings when one does', () => {
  const model = buildModel(loadSnapshot(basic), MODEL);
  const off = renderNginxConf(model, RENDER).text;
  assert.doesNotMatch(off, /tracing|opentelemetry|portico_span/);
  const logged = renderNginxConf(model, { ...RENDER, global: { ...GLOBAL_DEFAULTS, logFormatUpstream: '$status $opentelemetry_trace_id' } }).text;
  assert.match(logged, /set \$opentelemetry_trace_id ""; set \$opentelemetry_span_id ""; set \$portico_span "";/, 'declared for the log format');
  assert.doesNotMatch(logged, /portico\.tracing/);
  const g = { ...GLOBAL_DEFAULTS, enableOpentelemetry: true, otlpCollectorHost: 'otel.svc', otelSampler: 'TraceIdRatioBased' as const, otelSamplerRatio: 0.25 };
  const on = renderNginxConf(model, { ...RENDER, global: g, metrics: true }).text;
  assert.match(
    on,
    / require\("portico\.tracing"\)\.init_worker\(\{ host = "otel\.svc", port = 4318, service = "nginx", sampler = "TraceIdRatioBased", ratio = 0\.25, parent_based = true, queue = 2048, batch = 512, delay_ms = 5000 \}\) \}/,
  );
  const proxied = on.split('\n        location ').filter((l) => l.includes('proxy_pass http://portico_balancer;'));
  assert.ok(proxied.length > 0);
  for (const l of proxied) {
    assert.match(l, /set_by_lua_block \$opentelemetry_trace_id \{ return require\("portico\.tracing"\)\.start\(true, "", "[^"]*\|[^"]*\|[^"]*\|[^"]*\|[^"]*\|Ingress"\) \}/);
    assert.match(l, /log_by_lua_block \{ require\("portico\.metrics"\)\.log\(\) require\("portico\.tracing"\)\.finish\(\) \}/, 'the metrics hook the location overrides runs too');
  }
  // ewma's log hook (the balancer's, which counts the metrics itself) runs before the span is finished
  const ewma = renderNginxConf(buildModel(loadSnapshot(basic), { ...MODEL, loadBalance: 'ewma' }), { ...RENDER, global: g, metrics: true }).text;
  assert.match(ewma, /log_by_lua_block \{ require\("portico\.balancer"\)\.log\(\) require\("portico\.tracing"\)\.finish\(\) \}/);
  assert.doesNotMatch(ewma, /log_by_lua_block \{ require\("portico\.balancer"\)\.log\(\) \}/);
});

void test('/metrics: the exported and dropped counters, only once tracing counted', () => {
  assert.equal(tracingExposition('a|b|c|d|e|200|GET\t1\t3\n'), '');
  const text = tracingExposition('tracing\texported\t7\ntracing\tdropped\t2\nx\t1\t1\n');
  assert.match(text, /^portico_tracing_spans_exported_total 7$/m);
  assert.match(text, /^portico_tracing_spans_dropped_total\{reason="queue_full"\} 2$/m);
  assert.match(text, /^portico_tracing_spans_dropped_total\{reason="export_failed"\} 0$/m);
});
