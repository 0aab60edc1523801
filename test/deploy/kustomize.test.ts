// deploy/ builds with `kubectl kustomize` (base and both overlays), every object passes its Kubernetes schema, and
// the pieces agree with each other and with the code: flags parse, names point at objects that exist, RBAC is
// deploy/rbac.yaml (which test/unit/rbac.test.ts and test/duties/rbac-calls.test.ts hold to the calls the code makes).
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Deployment } from 'kubernetes-types/apps/v1.js';
import type { Service, ConfigMap } from 'kubernetes-types/core/v1.js';
import { parseFlags } from '../../src/config/flags.js';
import { parseConfigMap } from '../../src/annotations/configmap.js';
import { parseDuration } from '../../src/config/values.js';
import { rbacDocs } from '../support/rbac.js';
import { REPO } from '../support/portico.js';
import { haveKubectl, idOf, kustomize, one, schemaErrors, type Obj } from './kube-objects.js';
import { evalCel } from './cel.js';
import { classSelector } from '../../src/model/classes.js';
import type { Ingress, IngressClass } from '../../src/model/input.js';

const BUILDS = ['deploy', 'deploy/overlays/side-by-side', 'deploy/overlays/takeover'] as const;
/** How long Portico may take to stop nginx once the grace period is over (src/nginx/process.ts stop()). */
const STOP_MS = 10_000;

const COMMON = [
  'Namespace /portico',
  'ServiceAccount portico/portico',
  'Role portico/portico',
  'ClusterRole /portico',
  'ClusterRole /portico-duties',
  'RoleBinding portico/portico',
  'ClusterRoleBinding /portico',
  'ClusterRoleBinding /portico-duties',
  'ConfigMap portico/portico',
  'Service portico/portico',
  'Service portico/portico-admission',
  'Service portico/portico-metrics',
  'Deployment portico/portico',
  'HorizontalPodAutoscaler portico/portico',
  'PodDisruptionBudget portico/portico',
  'ValidatingWebhookConfiguration /portico',
  'ConfigMap portico/portico-grafana-dashboard',
];

/** A rendered object seen through its kubernetes-types type. */
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters
function cast<T>(o: Obj): T {
  return o as unknown as T;
}

/** The container's args as Portico parses them, $(VAR) expanded as the kubelet does from the downward API. */
function portico(objs: readonly Obj[]): { d: Deployment; args: string[]; config: ReturnType<typeof parseFlags> } {
  const d = cast<Deployment>(one(objs, 'Deployment', 'portico'));
  const c = d.spec?.template.spec?.containers[0];
  assert.ok(c);
  const env: Record<string, string> = {};
  for (const e of c.env ?? []) {
    const f = e.valueFrom?.fieldRef?.fieldPath;
    env[e.name] = f === 'metadata.namespace' ? (d.metadata?.namespace ?? '') : f === 'metadata.name' ? 'portico-7d9f-x2' : (e.value ?? '');
  }
  const args = (c.args ?? []).map((a) => a.replace(/\$\((\w+)\)/g, (_, n: string) => env[n] ?? `$(${n})`));
  return { d, args, config: parseFlags(args, env) };
}

const CLASSES: Readonly<Record<string, readonly [string, string]>> = {
  deploy: ['portico.dev/ingress-controller', 'portico'],
  'deploy/overlays/side-by-side': ['portico.dev/ingress-controller', 'portico'],
  'deploy/overlays/takeover': ['k8s.io/ingress-nginx', 'nginx'],
};

/** The container of one build: its class, probes, env, ports, security, volumes and grace period. */
function checkDeployment(b: string, objs: readonly Obj[]): void {
  const { d, config } = portico(objs);
  assert.deepEqual([config.controllerClass, config.ingressClass], CLASSES[b], b);
  const ic = objs.filter((o) => o.kind === 'IngressClass');
  assert.deepEqual(
    ic.map((o) => (o['spec'] as { controller: string }).controller),
    [config.controllerClass],
    `${b}: the IngressClass names the controller served`,
  );
  const pod = d.spec?.template.spec;
  const c = pod?.containers[0];
  assert.ok(pod && c);
  for (const probe of [c.readinessProbe, c.livenessProbe]) assert.deepEqual([probe?.httpGet?.path, probe?.httpGet?.port], ['/healthz', config.healthzPort]);
  assert.deepEqual(
    c.env?.map((e) => [e.name, e.valueFrom?.fieldRef?.fieldPath]),
    [
      ['POD_NAME', 'metadata.name'],
      ['POD_NAMESPACE', 'metadata.namespace'],
    ],
  );
  assert.deepEqual(
    c.ports?.map((p) => [p.name, p.containerPort]),
    [
      ['http', config.httpPort],
      ['https', config.httpsPort],
      ['metrics', config.healthzPort],
      ['webhook', config.validatingWebhook?.port],
    ],
  );
  // No capabilities.add: a non-root process with no-new-privileges gains none from it (measured in a real pod: bind()
  // to 80 refused). Ports below 1024 come from the pod's sysctl, which the restricted profile allows.
  assert.deepEqual(c.securityContext, { runAsNonRoot: true, allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
  assert.equal(pod.securityContext?.runAsNonRoot, true);
  assert.ok((pod.securityContext?.runAsUser ?? 0) > 0);
  const start = Number(pod.securityContext?.sysctls?.find((s) => s.name === 'net.ipv4.ip_unprivileged_port_start')?.value ?? 1024);
  assert.equal(start, 0, `${b}: uid ${String(pod.securityContext?.runAsUser)} may bind --http-port=80 and --https-port=443`);
  for (const p of c.ports ?? []) assert.ok(p.containerPort >= start, `${b}: port ${String(p.containerPort)} is bindable`);
  checkVolumesAndGrace(b, objs);
}

/** --work-dir on an emptyDir, the webhook's key from its Secret, the ConfigMap, and a grace period that covers a stop. */
function checkVolumesAndGrace(b: string, objs: readonly Obj[]): void {
  const { d, config } = portico(objs);
  const pod = d.spec?.template.spec;
  const c = pod?.containers[0];
  assert.ok(pod && c);
  const tmp = c.volumeMounts?.find((m) => config.workDir.startsWith(`${m.mountPath}/`));
  assert.ok(tmp && pod.volumes?.find((v) => v.name === tmp.name)?.emptyDir, `${b}: --work-dir ${config.workDir} is on an emptyDir`);
  const hook = c.volumeMounts?.find((m) => config.validatingWebhookCertificate?.startsWith(`${m.mountPath}/`));
  assert.equal(pod.volumes?.find((v) => v.name === hook?.name)?.secret?.secretName, 'portico-admission');
  // Every name a flag gives is an object of the build; the ConfigMap parses without a refused or unknown key.
  const cm = cast<ConfigMap>(one(objs, 'ConfigMap', config.configmap?.split('/')[1] ?? ''));
  const parsed = parseConfigMap(cm.data);
  assert.deepEqual([parsed.errors, parsed.unknown], [[], []]);
  assert.equal(config.publishService?.name, 'portico');
  const workerShutdownMs = parseDuration('worker-shutdown-timeout', cm.data?.['worker-shutdown-timeout'] ?? '240s', 0);
  const needMs = config.shutdownGracePeriodMs + workerShutdownMs + STOP_MS;
  assert.ok((pod.terminationGracePeriodSeconds ?? 30) * 1000 >= needMs, `${b}: terminationGracePeriodSeconds covers ${needMs} ms`);
}

/** Services, PDB, HPA and webhook of one build point at the pods, ports and Services that exist. */
function checkReferences(b: string, objs: readonly Obj[]): void {
  const { d } = portico(objs);
  const labels = d.spec?.template.metadata?.labels ?? {};
  const portNames = new Set(d.spec?.template.spec?.containers[0]?.ports?.map((p) => p.name));
  for (const s of objs.filter((o) => o.kind === 'Service').map((o) => cast<Service>(o))) {
    assert.ok(
      Object.entries(s.spec?.selector ?? {}).every(([k, v]) => labels[k] === v),
      `${b}: Service ${s.metadata?.name} selects the pods`,
    );
    for (const p of s.spec?.ports ?? []) assert.ok(portNames.has(String(p.targetPort)), `${b}: ${s.metadata?.name} targets ${String(p.targetPort)}`);
  }
  assert.equal(cast<Service>(one(objs, 'Service', 'portico')).spec?.type, 'LoadBalancer');
  const pdb = one(objs, 'PodDisruptionBudget', 'portico')['spec'] as { selector: { matchLabels: Record<string, string> } };
  assert.ok(Object.entries(pdb.selector.matchLabels).every(([k, v]) => labels[k] === v));
  const hpa = one(objs, 'HorizontalPodAutoscaler', 'portico')['spec'] as { scaleTargetRef: { kind: string; name: string }; minReplicas: number };
  assert.deepEqual(hpa.scaleTargetRef, { apiVersion: 'apps/v1', kind: 'Deployment', name: 'portico' });
  checkWebhook(b, objs);
}

/** The webhook's Service exists and reaches the container's webhook port. */
function checkWebhook(b: string, objs: readonly Obj[]): void {
  const { config } = portico(objs);
  const hook = (one(objs, 'ValidatingWebhookConfiguration', 'portico')['webhooks'] as { clientConfig: { service: { namespace: string; name: string; port: number } }; failurePolicy: string }[])[0];
  const svc = cast<Service>(one(objs, 'Service', hook?.clientConfig.service.name ?? ''));
  assert.equal(svc.metadata?.namespace, hook?.clientConfig.service.namespace);
  assert.equal(svc.spec?.ports?.find((p) => p.port === hook?.clientConfig.service.port)?.targetPort, 'webhook');
  assert.ok(config.validatingWebhook, `${b}: the webhook is on`);
  assert.equal(hook?.failurePolicy, b.endsWith('side-by-side') ? 'Ignore' : 'Fail', `${b}: side by side, Portico never blocks ingress-nginx's users`);
}

/**
 * The webhook's matchConditions (CEL, as the API server evaluates them) send it exactly the Ingresses Portico's
 * class selector takes in this build (its flags and IngressClasses), never another controller's, and never fail.
 */
function checkWebhookScope(b: string, objs: readonly Obj[]): void {
  const { config } = portico(objs);
  const hook = (one(objs, 'ValidatingWebhookConfiguration', 'portico')['webhooks'] as { matchConditions?: { name: string; expression: string }[] }[])[0];
  const conditions = hook?.matchConditions ?? [];
  assert.ok(conditions.length > 0, `${b}: the webhook has matchConditions`);
  const classes = objs.filter((o) => o.kind === 'IngressClass').map((o) => cast<IngressClass>(o));
  const ours = classSelector(classes, {
    controllerClass: config.controllerClass,
    ingressClass: config.ingressClass,
    watchIngressWithoutClass: config.watchIngressWithoutClass,
    defaultBackendService: undefined,
    loadBalance: 'round_robin',
  });
  const served = [...new Set([config.ingressClass, ...classes.filter((c) => c.spec?.controller === config.controllerClass).map((c) => c.metadata?.name ?? '')])];
  const ing = (spec: Record<string, string>, annotations?: Record<string, string>): Ingress => ({
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name: 'x', namespace: 'default', ...(annotations ? { annotations } : {}) },
    spec: { ...spec, rules: [] },
  });
  const cases: [string, Ingress][] = [
    ...served.flatMap((c): [string, Ingress][] => [
      [`ingressClassName ${c}`, ing({ ingressClassName: c })],
      [`annotation ${c}`, ing({}, { 'kubernetes.io/ingress.class': c, other: 'x' })],
    ]),
    ...['nginx', 'portico', 'traefik'].flatMap((c): [string, Ingress][] => [
      [`ingressClassName ${c}`, ing({ ingressClassName: c })],
      [`annotation ${c}`, ing({}, { 'kubernetes.io/ingress.class': c })],
    ]),
    ['no class, no annotations', ing({})],
    ['no class, other annotations', ing({}, { 'example.com/x': 'y' })],
  ];
  for (const [what, object] of cases) {
    const judged = conditions.every((m) => evalCel(m.expression, { object }));
    assert.equal(judged, ours(object), `${b}: ${what}: the webhook judges it exactly when Portico serves it`);
  }
  assert.ok(
    served.some((c) => conditions.every((m) => evalCel(m.expression, { object: ing({ ingressClassName: c }) }))),
    `${b}: Portico's own class is judged`,
  );
}

describe('deploy/ with kubectl kustomize', async () => {
  const kubectl = await haveKubectl();
  const builds = new Map<string, Obj[]>();
  before(async () => {
    if (kubectl) for (const b of BUILDS) builds.set(b, await kustomize(b));
  });
  const skip = kubectl ? false : 'kubectl is not on this machine (scripts/setup.sh cannot install it from Debian)';

  void test('base and overlays build, with the objects each should have', { skip }, () => {
    const ids = (b: string): string[] => (builds.get(b) ?? []).map(idOf).sort();
    assert.deepEqual(ids('deploy'), [...COMMON, 'IngressClass /portico'].sort());
    assert.deepEqual(ids('deploy/overlays/side-by-side'), [...COMMON, 'IngressClass /portico'].sort());
    assert.deepEqual(ids('deploy/overlays/takeover'), [...COMMON, 'IngressClass /nginx'].sort());
  });

  void test('every object validates against the Kubernetes schemas (kubernetes-models, offline)', { skip }, () => {
    for (const [b, objs] of builds) assert.deepEqual(objs.flatMap(schemaErrors), [], b);
  });

  void test('the RBAC installed is deploy/rbac.yaml, bound to the ServiceAccount the pods run as, in their namespace', { skip }, async () => {
    const file = (await rbacDocs()).map((d) => JSON.stringify(d)).sort();
    const rbacKinds = new Set(['ServiceAccount', 'Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding']);
    for (const [b, objs] of builds) {
      const rendered = objs
        .filter((o) => rbacKinds.has(o.kind))
        .map((o) => {
          const metadata = { ...o.metadata };
          delete metadata.labels;
          return JSON.stringify({ ...o, metadata });
        })
        .sort();
      assert.deepEqual(
        rendered.map((s) => JSON.parse(s) as unknown),
        file.map((s) => JSON.parse(s) as unknown),
        b,
      );
      const { d } = portico(objs);
      assert.equal(d.spec?.template.spec?.serviceAccountName, 'portico', b);
      assert.equal(d.metadata?.namespace, one(objs, 'Role', 'portico').metadata.namespace, `${b}: Leases and pods are read in POD_NAMESPACE`);
    }
  });

  void test('the Deployment: flags parse, class per overlay, probes, downward API, ports, security, grace period', { skip }, () => {
    for (const [b, objs] of builds) checkDeployment(b, objs);
  });

  void test('Services, HPA, PDB and the webhook point at the pods and ports that exist', { skip }, () => {
    for (const [b, objs] of builds) checkReferences(b, objs);
  });

  void test("the webhook judges only Ingresses of the class this build serves (matchConditions, CEL), so a missing Portico never blocks another controller's", { skip }, () => {
    for (const [b, objs] of builds) checkWebhookScope(b, objs);
  });

  void test('the Grafana dashboard ships as a ConfigMap for the dashboard sidecar, byte for byte', { skip }, async () => {
    const file = await readFile(join(REPO, 'deploy/grafana/portico.json'), 'utf8');
    for (const [b, objs] of builds) {
      const cm = cast<ConfigMap>(one(objs, 'ConfigMap', 'portico-grafana-dashboard'));
      assert.equal(cm.data?.['portico.json'], file, b);
      assert.equal(cm.metadata?.labels?.['grafana_dashboard'], '1');
    }
  });

  void test("the image is tagged with package.json's version", { skip }, async () => {
    const pkg = JSON.parse(await readFile(join(REPO, 'package.json'), 'utf8')) as { version: string };
    for (const [b, objs] of builds) assert.match(portico(objs).d.spec?.template.spec?.containers[0]?.image ?? '', new RegExp(`:${pkg.version.replace(/\./g, '\\.')}$`), b);
  });
});
