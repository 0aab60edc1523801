// migrate-check on a cluster that traces with ingress-nginx's OpenTelemetry keys: each key and annotation is served
// the same (docs/adr/0018), except a collector port of 4317, which Portico reads as OTLP/HTTP's 4318 and says so.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { portico } from './run.js';

interface Item {
  key: string;
  verdict: string;
  detail: string;
}

const KEYS: Record<string, string> = {
  'enable-opentelemetry': 'true',
  'opentelemetry-trust-incoming-span': 'false',
  'opentelemetry-operation-name': 'edge',
  'otlp-collector-host': 'otel-collector.observability.svc',
  'otel-service-name': 'ingress',
  'otel-sampler': 'TraceIdRatioBased',
  'otel-sampler-ratio': '0.25',
  'otel-sampler-parent-based': 'false',
  'otel-max-queuesize': '4096',
  'otel-schedule-delay-millis': '1000',
  'otel-max-export-batch-size': '256',
};

async function check(data: Record<string, string>): Promise<{ keys: Item[]; annotations: Item[] }> {
  const dir = await mkdtemp(join(tmpdir(), 'portico-migrate-otel-'));
  try {
    const cm = ['apiVersion: v1', 'kind: ConfigMap', 'metadata: { name: ingress-nginx-controller, namespace: ingress-nginx }', 'data:', ...Object.entries(data).map(([k, v]) => `  ${k}: "${v}"`)];
    const ing = [
      'apiVersion: networking.k8s.io/v1',
      'kind: Ingress',
      'metadata:',
      '  name: web',
      '  namespace: shop',
      '  annotations:',
      '    nginx.ingress.kubernetes.io/enable-opentelemetry: "true"',
      '    nginx.ingress.kubernetes.io/opentelemetry-trust-incoming-span: "true"',
      '    nginx.ingress.kubernetes.io/opentelemetry-operation-name: "shop-web"',
      'spec:',
      '  ingressClassName: nginx',
      '  rules: [{ host: shop.test, http: { paths: [{ path: /, pathType: Prefix, backend: { service: { name: web, port: { number: 80 } } } }] } }]',
    ];
    await writeFile(
      join(dir, 'all.yaml'),
      [
        'apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata: { name: nginx }\nspec: { controller: k8s.io/ingress-nginx }',
        'apiVersion: v1\nkind: Service\nmetadata: { name: web, namespace: shop }\nspec: { ports: [{ port: 80 }] }',
        cm.join('\n'),
        ing.join('\n'),
      ].join('\n---\n'),
    );
    const r = await portico(['migrate-check', '--manifests', dir, '--configmap', 'ingress-nginx/ingress-nginx-controller', '--json']);
    const report = JSON.parse(r.stdout) as { configMap: { keys: Item[] }; ingresses: { annotations: Item[] }[] };
    return { keys: report.configMap.keys, annotations: report.ingresses[0]?.annotations ?? [] };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

void test('the OpenTelemetry ConfigMap keys and annotations are "same"', async () => {
  const r = await check({ ...KEYS, 'otlp-collector-port': '4318' });
  assert.deepEqual(
    r.keys.map((k) => [k.key, k.verdict]),
    Object.keys({ ...KEYS, 'otlp-collector-port': '' })
      .sort()
      .map((k) => [k, 'same']),
  );
  assert.deepEqual(
    r.annotations.map((a) => [a.key.split('/')[1], a.verdict]),
    [
      ['enable-opentelemetry', 'same'],
      ['opentelemetry-operation-name', 'same'],
      ['opentelemetry-trust-incoming-span', 'same'],
    ],
  );
});

void test("otlp-collector-port 4317 (ingress-nginx's default, OTLP/gRPC) is read as 4318 and reported as a difference", async () => {
  const r = await check({ ...KEYS, 'otlp-collector-port': '4317' });
  const port = r.keys.find((k) => k.key === 'otlp-collector-port');
  assert.equal(port?.verdict, 'different');
  assert.match(port?.detail ?? '', /4317 is the OTLP\/gRPC port; Portico exports OTLP\/HTTP, to port 4318 of the same host/);
  assert.deepEqual(
    r.keys.filter((k) => k.key !== 'otlp-collector-port').map((k) => k.verdict),
    Object.keys(KEYS).map(() => 'same'),
  );
});

void test('a bad value is refused with the reason, as the controller refuses it', async () => {
  const r = await check({ 'enable-opentelemetry': 'true', 'otel-sampler': 'Sometimes', 'otel-sampler-ratio': '1.5' });
  assert.deepEqual(
    r.keys.filter((k) => k.verdict === 'refused').map((k) => [k.key, k.detail]),
    [
      ['otel-sampler', '"Sometimes" is not one of AlwaysOn, AlwaysOff, TraceIdRatioBased'],
      ['otel-sampler-ratio', '"1.5" is not a ratio from 0 to 1'],
    ],
  );
});
