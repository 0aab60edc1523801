// OpenTelemetry tracing through real nginx (docs/adr/0018): a server span per request exported over OTLP/HTTP to a
// local receiver, with the W3C traceparent continued only when trusted, sent on to the backend, and in the access log.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBackend, type Backend, type Echo } from '../support/backends.js';
import { configMap, manifestDir, serviceFor, writeManifests } from '../support/manifests.js';
import { ingress, ingressClass } from '../support/objects.js';
import { gateway, gatewayClass, httpRoute } from '../support/gateway.js';
import { attr, startReceiver, startSilentCollector, type Receiver, type ReceivedSpan } from '../support/otlp.js';
import { freePort, get, metric, startPortico, until, type Running } from '../support/portico.js';

const P = 'nginx.ingress.kubernetes.io';
const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-(0[01])$/;

/** The traceparent the backend got for the request whose echo this is. */
function sent(body: string): { trace: string; span: string; flags: string; tracestate: string | undefined } {
  const echo = JSON.parse(body) as Echo;
  const m = TRACEPARENT.exec(String(echo.headers['traceparent'] ?? ''));
  assert.ok(m, `the backend got a traceparent: ${String(echo.headers['traceparent'])}`);
  return { trace: m[1] ?? '', span: m[2] ?? '', flags: m[3] ?? '', tracestate: echo.headers['tracestate'] as string | undefined };
}

async function spanOf(r: Receiver, path: string): Promise<ReceivedSpan> {
  await until(`a span for ${path}`, () => r.spans.some((s) => attr(s, 'url.path') === path), 10_000, 50);
  const s = r.spans.find((x) => attr(x, 'url.path') === path);
  assert.ok(s);
  return s;
}

describe('tracing: spans, trust, propagation and the access log', () => {
  let main: Backend;
  let receiver: Receiver;
  let dir = '';
  let logDir = '';
  let portico: Running;

  before(async () => {
    [main, receiver] = await Promise.all([startBackend('main'), startReceiver()]);
    dir = await manifestDir();
    logDir = await mkdtemp(join(tmpdir(), 'portico-tracing-'));
    await writeManifests(dir, 'all.yaml', [
      ingressClass('portico'),
      ...serviceFor('main', [main]),
      configMap(
        'portico',
        {
          'enable-opentelemetry': 'true',
          'otlp-collector-host': '127.0.0.1',
          'otlp-collector-port': String(receiver.port),
          'otel-service-name': 'edge',
          'otel-schedule-delay-millis': '100',
          // one worker: its spans are exported in the order of its requests
          'worker-processes': '1',
          'access-log-path': join(logDir, 'access.log'),
          'log-format-upstream': '$request_uri $status trace=$opentelemetry_trace_id span=$opentelemetry_span_id',
        },
        'kube-system',
      ),
      ingress('app', { className: 'portico', host: 'app.test', paths: [{ path: '/', type: 'Prefix', service: 'main' }] }),
      ingress('untrusting', {
        className: 'portico',
        host: 'untrusting.test',
        paths: [{ path: '/api', type: 'Prefix', service: 'main' }],
        annotations: { [`${P}/enable-opentelemetry`]: 'true', [`${P}/opentelemetry-trust-incoming-span`]: 'false', [`${P}/opentelemetry-operation-name`]: 'api-call' },
      }),
      gatewayClass('portico'),
      gateway('web', [{ name: 'http' }]),
      httpRoute('shop', { parentRefs: [{ name: 'web' }], hostnames: ['gw.test'], rules: [{ matches: [{ path: { type: 'PathPrefix', value: '/shop' } }], backendRefs: [{ name: 'main', port: 80 }] }] }),
      ingress('quiet', { className: 'portico', host: 'quiet.test', paths: [{ path: '/', type: 'Prefix', service: 'main' }], annotations: { [`${P}/enable-opentelemetry`]: 'false' } }),
    ]);
    portico = await startPortico(['--manifests', dir, '--configmap', 'kube-system/portico']);
    await until('served', async () => (await get(portico.http, 'app.test', '/')).status === 200);
  });

  after(async () => {
    assert.equal(await portico?.stop(), 0);
    await main?.close();
    await receiver?.close();
    await rm(dir, { recursive: true, force: true });
    await rm(logDir, { recursive: true, force: true });
  });

  test('a request without traceparent starts a trace: a root server span with the request attributes, the same ids at the backend', async () => {
    const r = await get(portico.http, 'app.test', '/fresh?q=1', { headers: { 'user-agent': 'tracing-test' } });
    assert.equal(r.status, 200);
    const b = sent(r.body);
    assert.equal(b.flags, '01', 'AlwaysOn, the default sampler, samples');
    const s = await spanOf(receiver, '/fresh');
    assert.equal(s.traceId, b.trace);
    assert.equal(s.spanId, b.span, "the backend's parent is the server span");
    assert.equal(s.parentSpanId ?? '', '', 'a root span');
    assert.equal(s.kind, 2);
    assert.equal(s.service, 'edge');
    assert.equal(s.name, 'GET /');
    assert.equal(attr(s, 'http.request.method'), 'GET');
    assert.equal(attr(s, 'http.route'), '/');
    assert.equal(attr(s, 'http.response.status_code'), '200');
    assert.equal(attr(s, 'server.address'), 'app.test');
    assert.equal(attr(s, 'client.address'), '127.0.0.1');
    assert.equal(attr(s, 'upstream.address'), `127.0.0.1:${main.port}`);
    assert.match(attr(s, 'upstream.response_time'), /^\d+\.\d{3}$/);
    assert.equal(attr(s, 'user_agent.original'), 'tracing-test');
    assert.equal(attr(s, 'k8s.namespace.name'), 'default');
    assert.equal(attr(s, 'k8s.ingress.name'), 'app');
    assert.equal(attr(s, 'k8s.service.name'), 'main');
    assert.ok(BigInt(s.endTimeUnixNano) >= BigInt(s.startTimeUnixNano));
    assert.deepEqual(receiver.wrong, []);
  });

  test('a trusted traceparent is continued: same trace, the client span as parent, tracestate passed on', async () => {
    const r = await get(portico.http, 'app.test', '/continued', { headers: { traceparent: `00-${TRACE}-${PARENT}-01`, tracestate: 'vendor=abc' } });
    const b = sent(r.body);
    assert.equal(b.trace, TRACE);
    assert.notEqual(b.span, PARENT);
    assert.equal(b.tracestate, 'vendor=abc');
    const s = await spanOf(receiver, '/continued');
    assert.equal(s.traceId, TRACE);
    assert.equal(s.parentSpanId, PARENT);
    assert.equal(s.spanId, b.span);
  });

  test('parent-based sampling: an incoming unsampled flag is kept and no span is exported', async () => {
    const r = await get(portico.http, 'app.test', '/unsampled', { headers: { traceparent: `00-${TRACE}-${PARENT}-00` } });
    const b = sent(r.body);
    assert.equal(b.trace, TRACE);
    assert.equal(b.flags, '00');
    // one worker exports in request order: once the next request's span is in, this one would have been
    await get(portico.http, 'app.test', '/after-unsampled');
    await spanOf(receiver, '/after-unsampled');
    assert.equal(receiver.spans.filter((s) => attr(s, 'url.path') === '/unsampled').length, 0);
  });

  test('opentelemetry-trust-incoming-span false: a new trace, no parent, tracestate dropped; the operation name applies', async () => {
    const r = await get(portico.http, 'untrusting.test', '/api/x', { headers: { traceparent: `00-${TRACE}-${PARENT}-00`, tracestate: 'vendor=abc' } });
    const b = sent(r.body);
    assert.notEqual(b.trace, TRACE);
    assert.equal(b.flags, '01', "the client's unsampled flag is not trusted either");
    assert.equal(b.tracestate, undefined);
    const s = await spanOf(receiver, '/api/x');
    assert.equal(s.traceId, b.trace);
    assert.equal(s.parentSpanId ?? '', '');
    assert.equal(s.name, 'api-call');
    assert.equal(attr(s, 'http.route'), '/api');
  });

  test('a malformed traceparent starts a new trace', async () => {
    const r = await get(portico.http, 'app.test', '/malformed', { headers: { traceparent: `00-${TRACE.toUpperCase()}-${PARENT}-01` } });
    const b = sent(r.body);
    assert.notEqual(b.trace, TRACE.toUpperCase());
    assert.notEqual(b.trace, TRACE);
    const s = await spanOf(receiver, '/malformed');
    assert.equal(s.parentSpanId ?? '', '');
  });

  test('enable-opentelemetry "false" on an Ingress: no span, the client traceparent reaches the backend untouched', async () => {
    const r = await get(portico.http, 'quiet.test', '/quiet', { headers: { traceparent: `00-${TRACE}-${PARENT}-01` } });
    assert.equal((JSON.parse(r.body) as Echo).headers['traceparent'], `00-${TRACE}-${PARENT}-01`);
    await get(portico.http, 'app.test', '/after-quiet');
    await spanOf(receiver, '/after-quiet');
    assert.equal(receiver.spans.filter((s) => attr(s, 'url.path') === '/quiet').length, 0);
  });

  test('an HTTPRoute is traced as an Ingress is: its namespace, name and route in the span', async () => {
    await until('the route is served', async () => (await get(portico.http, 'gw.test', '/shop/ready')).status === 200);
    const r = await get(portico.http, 'gw.test', '/shop/cart');
    const b = sent(r.body);
    const s = await spanOf(receiver, '/shop/cart');
    assert.equal(s.spanId, b.span);
    assert.equal(attr(s, 'k8s.httproute.name'), 'shop');
    assert.equal(attr(s, 'k8s.namespace.name'), 'default');
    assert.equal(attr(s, 'k8s.service.name'), 'main');
    assert.equal(attr(s, 'server.address'), 'gw.test');
  });

  test('the access log carries $opentelemetry_trace_id and $opentelemetry_span_id', async () => {
    const r = await get(portico.http, 'app.test', '/logged');
    const b = sent(r.body);
    const path = join(logDir, 'access.log');
    let line = '';
    await until(
      'the access log line',
      async () => {
        line = (await readFile(path, 'utf8').catch(() => '')).split('\n').find((l) => l.startsWith('/logged ')) ?? '';
        return line !== '';
      },
      10_000,
      200,
    );
    assert.equal(line, `/logged 200 trace=${b.trace} span=${b.span}`);
  });
});

describe('tracing: TraceIdRatioBased decides by the trace id', () => {
  let main: Backend;
  let receiver: Receiver;
  let dir = '';
  let portico: Running;

  before(async () => {
    [main, receiver] = await Promise.all([startBackend('main'), startReceiver()]);
    dir = await manifestDir();
    const data = {
      'enable-opentelemetry': 'true',
      'otlp-collector-host': '127.0.0.1',
      'otlp-collector-port': String(receiver.port),
      'otel-sampler': 'TraceIdRatioBased',
      'otel-sampler-ratio': '0.5',
      'otel-sampler-parent-based': 'false',
      'otel-schedule-delay-millis': '100',
      'worker-processes': '1',
    };
    await writeManifests(dir, 'all.yaml', [
      ingressClass('portico'),
      ...serviceFor('main', [main]),
      configMap('portico', data, 'kube-system'),
      ingress('app', { className: 'portico', host: 'app.test', paths: [{ path: '/', type: 'Prefix', service: 'main' }] }),
    ]);
    portico = await startPortico(['--manifests', dir, '--configmap', 'kube-system/portico']);
    await until('served', async () => (await get(portico.http, 'app.test', '/')).status === 200);
  });

  after(async () => {
    assert.equal(await portico?.stop(), 0);
    await main?.close();
    await receiver?.close();
    await rm(dir, { recursive: true, force: true });
  });

  test("below the ratio sampled, above it not, whatever the parent's flag says when parent-based is false", async () => {
    const low = `${'1'.repeat(19)}${'0'.repeat(13)}`;
    const high = `${'2'.repeat(19)}${'f'.repeat(13)}`;
    const a = sent((await get(portico.http, 'app.test', '/low', { headers: { traceparent: `00-${low}-${PARENT}-00` } })).body);
    const b = sent((await get(portico.http, 'app.test', '/high', { headers: { traceparent: `00-${high}-${PARENT}-01` } })).body);
    assert.deepEqual([a.trace, a.flags], [low, '01']);
    assert.deepEqual([b.trace, b.flags], [high, '00']);
    const s = await spanOf(receiver, '/low');
    assert.equal(s.parentSpanId, PARENT);
    await get(portico.http, 'app.test', '/after', { headers: { traceparent: `00-${low}-${PARENT}-00` } });
    await spanOf(receiver, '/after');
    assert.equal(receiver.spans.filter((x) => attr(x, 'url.path') === '/high').length, 0);
    // new traces: about half of them sampled (each decision is the trace id's, checked above)
    const flags = [];
    for (let i = 0; i < 40; i++) flags.push(sent((await get(portico.http, 'app.test', `/n${i}`)).body).flags);
    const sampled = flags.filter((f) => f === '01').length;
    assert.ok(sampled > 5 && sampled < 35, `${sampled} of 40 sampled at 0.5`);
  });
});

describe('tracing: a dead or silent collector costs requests nothing; the spans lost are counted', () => {
  let main: Backend;
  let dir = '';

  before(async () => {
    main = await startBackend('main');
    dir = await manifestDir();
  });

  after(async () => {
    await main?.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function run(port: number, extra: Record<string, string>, check: (p: Running) => Promise<void>): Promise<void> {
    const data = { 'enable-opentelemetry': 'true', 'otlp-collector-host': '127.0.0.1', 'otlp-collector-port': String(port), 'otel-schedule-delay-millis': '100', ...extra };
    await writeManifests(dir, 'all.yaml', [
      ingressClass('portico'),
      ...serviceFor('main', [main]),
      configMap('portico', data, 'kube-system'),
      ingress('app', { className: 'portico', host: 'app.test', paths: [{ path: '/', type: 'Prefix', service: 'main' }] }),
    ]);
    const p = await startPortico(['--manifests', dir, '--configmap', 'kube-system/portico']);
    try {
      await until('served', async () => (await get(p.http, 'app.test', '/')).status === 200);
      await check(p);
    } finally {
      assert.equal(await p.stop(), 0);
    }
  }

  test('nothing listens on the collector port: every request answers 200, the failed exports are counted', async () => {
    await run(await freePort(), {}, async (p) => {
      for (let i = 0; i < 20; i++) assert.equal((await get(p.http, 'app.test', `/dead${i}`, { timeoutMs: 5000 })).status, 200);
      await until('export failures counted', async () => (await metric(p, 'portico_tracing_spans_dropped_total{reason="export_failed"}')) > 0, 10_000, 100);
      assert.equal(await metric(p, 'portico_tracing_spans_exported_total'), 0);
    });
  });

  test('a collector that never answers: requests still answer 200, a full queue drops and counts', async () => {
    const silent = await startSilentCollector();
    try {
      await run(silent.port, { 'otel-max-queuesize': '4', 'otel-max-export-batch-size': '2', 'worker-processes': '1' }, async (p) => {
        await until('an export is waiting on the collector', () => silent.connections() > 0, 10_000, 50);
        for (let i = 0; i < 30; i++) assert.equal((await get(p.http, 'app.test', `/silent${i}`, { timeoutMs: 5000 })).status, 200);
        await until('queue drops counted', async () => (await metric(p, 'portico_tracing_spans_dropped_total{reason="queue_full"}')) > 0, 10_000, 100);
      });
    } finally {
      await silent.close();
    }
  });
});

describe('tracing off in the ConfigMap: one Ingress opts in by annotation (its host leaves the dynamic route table); a log format naming the trace variables is served', () => {
  let main: Backend;
  let receiver: Receiver;
  let dir = '';
  let logDir = '';
  let portico: Running;

  before(async () => {
    [main, receiver] = await Promise.all([startBackend('main'), startReceiver()]);
    dir = await manifestDir();
    logDir = await mkdtemp(join(tmpdir(), 'portico-tracing-off-'));
    await writeManifests(dir, 'all.yaml', [
      ingressClass('portico'),
      ...serviceFor('main', [main]),
      configMap(
        'portico',
        {
          'access-log-path': join(logDir, 'access.log'),
          'log-format-upstream': '$request_uri trace=$opentelemetry_trace_id span=$opentelemetry_span_id',
          'otlp-collector-host': '127.0.0.1',
          'otlp-collector-port': String(receiver.port),
          'otel-schedule-delay-millis': '100',
        },
        'kube-system',
      ),
      ingress('app', { className: 'portico', host: 'app.test', paths: [{ path: '/', type: 'Prefix', service: 'main' }] }),
      ingress('opted', { className: 'portico', host: 'opted.test', paths: [{ path: '/', type: 'Prefix', service: 'main' }], annotations: { [`${P}/enable-opentelemetry`]: 'true' } }),
    ]);
    portico = await startPortico(['--manifests', dir, '--configmap', 'kube-system/portico']);
    await until('served', async () => (await get(portico.http, 'app.test', '/')).status === 200);
  });

  after(async () => {
    assert.equal(await portico?.stop(), 0);
    await main?.close();
    await receiver?.close();
    await rm(dir, { recursive: true, force: true });
    await rm(logDir, { recursive: true, force: true });
  });

  test('no traceparent is added, and both fields are empty', async () => {
    const r = await get(portico.http, 'app.test', '/untraced');
    assert.equal((JSON.parse(r.body) as Echo).headers['traceparent'], undefined);
    let line = '';
    await until(
      'the access log line',
      async () => {
        line = (await readFile(join(logDir, 'access.log'), 'utf8').catch(() => '')).split('\n').find((l) => l.startsWith('/untraced ')) ?? '';
        return line !== '';
      },
      10_000,
      200,
    );
    assert.equal(line, '/untraced trace= span=');
  });

  test('the Ingress that opts in is traced, the others are not', async () => {
    await until('opted.test served', async () => (await get(portico.http, 'opted.test', '/ready')).status === 200);
    const b = sent((await get(portico.http, 'opted.test', '/opted')).body);
    const s = await spanOf(receiver, '/opted');
    assert.deepEqual([s.traceId, s.spanId, attr(s, 'k8s.ingress.name')], [b.trace, b.span, 'opted']);
    assert.equal(receiver.spans.filter((x) => attr(x, 'server.address') === 'app.test').length, 0);
  });
});
