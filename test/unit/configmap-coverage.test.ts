// Every ConfigMap key, annotation and flag of ingress-nginx's final release is accounted for: implemented, refused with
// the reason, or a documented no-op. A name missing from Portico's tables fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CONFIGMAP_KEYS, parseConfigMap } from '../../src/annotations/configmap.js';
import { CONFIGMAP_COMPAT } from '../../src/annotations/configmap-without-setting.js';
import { INGRESS_NGINX_ANNOTATIONS, INGRESS_NGINX_CONFIGMAP_KEYS, INGRESS_NGINX_FLAGS, REMOVED_ANNOTATIONS } from '../../src/annotations/ingress-nginx-lists.js';
import { parseAnnotations } from '../../src/annotations/parse.js';
import { BY_KEY } from '../../src/annotations/table.js';
import { COMPAT_ANNOTATION_BY_KEY } from '../../src/annotations/table-without-setting.js';
import { FLAGS, parseFlags } from '../../src/config/flags.js';
import { COMPAT_FLAGS } from '../../src/config/flags-without-setting.js';

const P = 'nginx.ingress.kubernetes.io';
const OPTS = { prefix: P, riskLevel: 'Critical' as const, allowSnippets: true, namespace: 'ns' };

void test('every ConfigMap key of ingress-nginx is implemented, refused or a documented no-op, and only once', () => {
  const read = new Set(CONFIGMAP_KEYS.map((k) => k.key));
  const compat = new Set(CONFIGMAP_COMPAT.map((k) => k.key));
  assert.deepEqual(
    INGRESS_NGINX_CONFIGMAP_KEYS.filter((k) => !read.has(k) && !compat.has(k)),
    [],
  );
  assert.deepEqual(
    [...compat].filter((k) => read.has(k)),
    [],
  );
  assert.equal(compat.size, CONFIGMAP_COMPAT.length);
  assert.ok(INGRESS_NGINX_CONFIGMAP_KEYS.length >= 190, `${INGRESS_NGINX_CONFIGMAP_KEYS.length} keys`);
});

void test('a ConfigMap of recognised keys: refused ones are named with the reason, no-ops are not unknown', () => {
  const r = parseConfigMap({
    'enable-modsecurity': 'true',
    'enable-brotli': 'false',
    'use-geoip': 'true',
    'enable-opentelemetry': 'true',
    'zipkin-collector-host': 'z',
    'reuse-port': 'true',
    'nonsense-key': 'x',
  });
  assert.deepEqual(r.unknown, ['nonsense-key']);
  assert.deepEqual(
    r.refused.map((e) => e.key),
    ['enable-modsecurity', 'zipkin-collector-host'],
  );
  assert.equal(r.settings.enableOpentelemetry, true, 'enable-opentelemetry is implemented (docs/adr/0018)');
  assert.match(r.refused[0]?.reason ?? '', /ModSecurity needs a module that Debian's nginx packages do not ship/);
  assert.deepEqual(
    r.noops.map((e) => e.key),
    ['enable-brotli', 'reuse-port', 'use-geoip'],
  );
});

void test('every annotation of ingress-nginx is implemented, refused or a documented no-op; removed names are not read', () => {
  assert.deepEqual(
    INGRESS_NGINX_ANNOTATIONS.filter((k) => !BY_KEY.has(k) && !COMPAT_ANNOTATION_BY_KEY.has(k)),
    [],
  );
  assert.deepEqual(
    Object.keys(REMOVED_ANNOTATIONS).filter((k) => BY_KEY.has(k) || COMPAT_ANNOTATION_BY_KEY.has(k)),
    [],
  );
});

/** The 27 names a new user found ignored without a Warning, and removed names: each now answers. */
const ONCE_SILENT: Record<string, string> = {
  'enable-modsecurity': 'true',
  'enable-owasp-core-rules': 'true',
  'modsecurity-transaction-id': '$request_id',
  'ssl-ciphers': 'ALL',
  'ssl-prefer-server-ciphers': 'true',
  'session-cookie-domain': 'a.test',
  'auth-keepalive': '10',
  'auth-keepalive-requests': '100',
  'auth-keepalive-timeout': '60',
  'auth-keepalive-share-vars': 'true',
  'proxy-ssl-ciphers': 'ALL',
  'fastcgi-index': 'index.php',
  'fastcgi-params-configmap': 'fcgi',
  'enable-opentelemetry': 'true',
  'opentelemetry-operation-name': 'op',
  'opentelemetry-trust-incoming-span': 'true',
  'use-port-in-redirects': 'true',
  'session-cookie-change-on-failure': 'true',
  'session-cookie-conditional-samesite-none': 'true',
  'session-cookie-partitioned': 'true',
  'affinity-canary-behavior': 'legacy',
  'upstream-hash-by-subset': 'true',
  'upstream-hash-by-subset-size': '3',
  'disable-proxy-intercept-errors': 'true',
  'http2-push-preload': 'true',
  'proxy-max-temp-file-size': '1024m',
  'proxy-busy-buffers-size': '8k',
};

void test('every name with the prefix is applied, refused with its reason, a documented no-op, or a Warning', () => {
  const names = [...new Set([...INGRESS_NGINX_ANNOTATIONS, ...Object.keys(ONCE_SILENT), ...Object.keys(REMOVED_ANNOTATIONS), 'secure-backend'])];
  const verdicts = new Map<string, string>();
  for (const name of names) {
    const spec = BY_KEY.get(name);
    const value = ONCE_SILENT[name] ?? (spec && spec.default !== '' ? spec.default : 'true');
    const r = parseAnnotations({ [`${P}/${name}`]: value }, OPTS);
    const compat = COMPAT_ANNOTATION_BY_KEY.get(name);
    const verdict = r.errors.length > 0 ? 'refused' : r.warnings.length > 0 ? 'warning' : spec ? 'applied' : compat?.status === 'no-op' || compat ? 'no-op' : 'SILENT';
    verdicts.set(name, verdict);
  }
  assert.deepEqual(
    [...verdicts].filter(([, v]) => v === 'SILENT'),
    [],
  );
  for (const [name, v] of [
    ['enable-modsecurity', 'refused'],
    ['ssl-ciphers', 'applied'],
    ['auth-keepalive', 'no-op'],
    // ignored by ingress-nginx since 0.21: a Warning, served (it was refused before ADR 0016)
    ['secure-backends', 'warning'],
    ['secure-verify-ca-secret', 'refused'],
    ['session-cookie-hash', 'warning'],
    ['secure-backend', 'warning'],
    ['use-port-in-redirects', 'applied'],
    ['proxy-max-temp-file-size', 'applied'],
    ['enable-opentelemetry', 'applied'],
    ['opentelemetry-trust-incoming-span', 'applied'],
  ] as const) {
    assert.equal(verdicts.get(name), v, name);
  }
  const removed = parseAnnotations({ [`${P}/grpc-backend`]: 'true' }, OPTS);
  assert.deepEqual(
    removed.warnings.map((w) => w.reason),
    ['removed from ingress-nginx in an earlier release; use backend-protocol: "GRPC"; ignored'],
  );
});

void test('every flag of ingress-nginx is a flag of Portico or accepted for compatibility', () => {
  assert.deepEqual(
    INGRESS_NGINX_FLAGS.filter((f) => FLAGS[f] === undefined && COMPAT_FLAGS[f] === undefined && f !== 'v'),
    [],
  );
  assert.deepEqual(
    Object.keys(COMPAT_FLAGS).filter((f) => FLAGS[f] !== undefined),
    [],
  );
});

void test("an ingress-nginx Deployment's arguments parse: mapped flags take effect, refused ones warn", () => {
  const args = [
    '/nginx-ingress-controller',
    '--publish-service=ingress-nginx/ingress-nginx-controller',
    '--election-id=ingress-nginx-leader',
    '--controller-class=k8s.io/ingress-nginx',
    '--ingress-class=nginx',
    '--configmap=ingress-nginx/ingress-nginx-controller',
    '--validating-webhook=:8443',
    '--validating-webhook-certificate=/usr/local/certificates/cert',
    '--validating-webhook-key=/usr/local/certificates/key',
    '--enable-metrics=false',
    '--v=2',
    '--sync-period=10m',
    '--disable-leader-election',
    '--watch-ingress-without-class=true',
    '--enable-topology-aware-routing=true',
    '--disable-catch-all=false',
    '--default-ssl-certificate=ingress-nginx/default-cert',
    '-v',
    '5',
    '--sync-rate-limit=0.5',
    '--logtostderr',
    '--stderrthreshold=2',
    '--post-shutdown-grace-period=10',
    '--health-check-path=/healthz',
    '--profiling=false',
    '--certificate-authority=/ca.crt',
    '--metrics-per-host=false',
    '--ingress-class-by-name=true',
  ];
  const c = parseFlags(args.slice(1), {});
  assert.deepEqual(
    [c.electionId, c.controllerClass, c.enableMetrics, c.watchIngressWithoutClass, c.syncPeriodMs, c.logLevel],
    ['ingress-nginx-leader', 'k8s.io/ingress-nginx', false, true, 2000, 'debug'],
  );
  assert.deepEqual(
    c.warnings.map((w) => w.split(' ')[0]),
    ['--enable-topology-aware-routing', '--certificate-authority'],
  );
});
