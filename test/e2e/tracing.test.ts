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
import { attr, startReceiver, type Receiver, type ReceivedSpan } from '../support/otlp.js';
import { get, startPortico, until, type Running } from '../support/portico.js';

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
