// The validating webhook over HTTPS: allows valid Ingresses, refuses what the model leaves out with the same text
// the log gives, ignores other classes, and starts no process and writes no file while answering.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import childProcess from 'node:child_process';
import fs from 'node:fs';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { request } from 'node:https';
import { syncBuiltinESMExports } from 'node:module';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/log.js';
import { Store } from '../../src/store/store.js';
import { regexSafety } from '../../src/model/regex-safety.js';
import { buildModel } from '../../src/model/build.js';
import type { Ingress, ModelOptions, Snapshot } from '../../src/model/input.js';
import { ProblemReporter } from '../../src/controller/problems.js';
import { admissionChecker } from '../../src/pipeline/build.js';
import { parseFlags } from '../../src/config/flags.js';
import { startWebhook, type Webhook } from '../../src/webhook/server.js';
import { ingress, ingressClass, service } from '../support/objects.js';
import { makeCert, type Pem } from '../support/certs.js';
import { tmpdir } from 'node:os';

const OPTS: ModelOptions = {
  controllerClass: 'portico.dev/ingress-controller',
  ingressClass: 'portico',
  watchIngressWithoutClass: false,
  defaultBackendService: undefined,
  loadBalance: 'round_robin',
};
const STORE_SIZE = 1000;

/** Wraps every function that starts a process or writes a file, in the modules' objects and their ESM bindings. */
function hookSideEffects(): { calls: string[]; restore: () => void } {
  const calls: string[] = [];
  const saved: [Record<string, unknown>, string, unknown][] = [];
  const wrap = (obj: Record<string, unknown>, prefix: string, names: string[]) => {
    for (const name of names) {
      const orig = obj[name];
      if (typeof orig !== 'function') continue;
      saved.push([obj, name, orig]);
      obj[name] = function (this: unknown, ...args: unknown[]) {
        calls.push(`${prefix}.${name}(${String(args[0])})`);
        return (orig as (...a: unknown[]) => unknown).apply(this, args);
      };
    }
  };
  wrap(childProcess, 'child_process', ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork']);
  const writes = [
    'writeFile',
    'writeFileSync',
    'appendFile',
    'appendFileSync',
    'createWriteStream',
    'mkdir',
    'mkdirSync',
    'mkdtemp',
    'mkdtempSync',
    'rename',
    'renameSync',
    'copyFile',
    'copyFileSync',
    'symlink',
    'symlinkSync',
    'truncate',
    'truncateSync',
    'rm',
    'rmSync',
    'unlink',
    'unlinkSync',
    'cp',
    'cpSync',
  ];
  wrap(fs, 'fs', writes);
  wrap(
    fs.promises,
    'fs.promises',
    writes.filter((n) => !n.endsWith('Sync') && n !== 'createWriteStream'),
  );
  // open with any flag but read-only is a write too.
  for (const [obj, prefix] of [
    [fs, 'fs'],
    [fs.promises, 'fs.promises'],
  ] as const) {
    const target = obj as unknown as Record<string, unknown>;
    for (const name of ['open', 'openSync']) {
      const orig = target[name];
      if (typeof orig !== 'function') continue;
      saved.push([target, name, orig]);
      target[name] = function (this: unknown, ...args: unknown[]) {
        const flags = args[1];
        if (flags !== undefined && flags !== 'r' && flags !== fs.constants.O_RDONLY && typeof flags !== 'function') calls.push(`${prefix}.${name}(${String(args[0])}, ${String(flags)})`);
        return (orig as (...a: unknown[]) => unknown).apply(this, args);
      };
    }
  }
  syncBuiltinESMExports();
  return {
    calls,
    restore: () => {
      for (const [obj, name, orig] of saved) obj[name] = orig;
      syncBuiltinESMExports();
    },
  };
}

/** PIDs of this process's children, from /proc. */
function children(): string[] {
  return readdirSync(`/proc/${process.pid}/task`)
    .flatMap((t) => readFileSync(`/proc/${process.pid}/task/${t}/children`, 'utf8').split(/\s+/).filter(Boolean))
    .sort();
}

function review(operation: string, object: unknown, uid = `uid-${Math.random()}`) {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid,
      kind: { group: 'networking.k8s.io', version: 'v1', kind: 'Ingress' },
      resource: { group: 'networking.k8s.io', version: 'v1', resource: 'ingresses' },
      operation,
      namespace: 'default',
      name: (object as Ingress).metadata?.name,
      object,
      userInfo: { username: 'test' },
      dryRun: false,
    },
  };
}

interface Answer {
  status: number;
  body: string;
  json: () => { response: { uid: string; allowed: boolean; status?: { code: number; message: string }; warnings?: string[] } };
}

describe('validating admission webhook', () => {
  let cert: Pem;
  let certDir = '';
  let hook: Webhook;
  let hooks: ReturnType<typeof hookSideEffects>;
  let childrenBefore: string[];
  const store = new Store<Snapshot>();
  const logged: string[] = [];
  const log = createLogger(
    'debug',
    new Writable({
      write(chunk: Buffer, _e, cb) {
        logged.push(chunk.toString('utf8'));
        cb();
      },
    }),
  );

  const post = (body: unknown, method = 'POST'): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const text = typeof body === 'string' ? body : JSON.stringify(body);
      const req = request(
        { host: '127.0.0.1', port: hook.port, path: '/networking/v1/ingresses', method, ca: cert.cert, servername: 'localhost', agent: false, headers: { 'content-type': 'application/json' } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const b = Buffer.concat(chunks).toString('utf8');
            resolve({ status: res.statusCode ?? 0, body: b, json: () => JSON.parse(b) as ReturnType<Answer['json']> });
          });
        },
      );
      req.on('error', reject);
      req.end(method === 'POST' ? text : undefined);
    });

  before(async () => {
    certDir = mkdtempSync(join(tmpdir(), 'portico-webhook-'));
    cert = makeCert(certDir, 'localhost', { sans: ['localhost'] });
    writeFileSync(join(certDir, 'tls.crt'), cert.cert);
    writeFileSync(join(certDir, 'tls.key'), cert.key, { mode: 0o600 });
    store.upsert('IngressClass', ingressClass('portico'));
    store.upsert('IngressClass', ingressClass('other', 'example.com/other'));
    for (let i = 0; i < STORE_SIZE; i++) {
      store.upsert('Service', service(`svc-${i}`));
      store.upsert(
        'Ingress',
        ingress(`app-${i}`, {
          className: 'portico',
          host: `app-${i}.example.com`,
          paths: [
            { path: '/', type: 'Prefix', service: `svc-${i}` },
            { path: `/api/v${i % 7}`, type: 'Exact', service: `svc-${i}` },
          ],
        }),
      );
    }
    store.upsert('Service', service('web'));
    hook = await startWebhook({
      host: '127.0.0.1',
      port: 0,
      certFile: join(certDir, 'tls.crt'),
      keyFile: join(certDir, 'tls.key'),
      snapshot: () => store.snapshot(),
      checker: admissionChecker(parseFlags(['--manifests', certDir, '--allow-snippet-annotations'], {}), log),
      log,
      reloadIntervalMs: 0,
    });
    childrenBefore = children();
    hooks = hookSideEffects();
  });

  after(async () => {
    hooks.restore();
    await hook.close();
    rmSync(certDir, { recursive: true, force: true });
  });

  test('a valid Ingress is allowed and the uid is echoed', async () => {
    const r = await post(review('CREATE', ingress('new', { className: 'portico', host: 'new.example.com', paths: [{ path: '/', type: 'Prefix', service: 'web' }] }), 'u-1'));
    assert.equal(r.status, 200);
    assert.deepEqual(r.json(), { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'u-1', allowed: true } });
  });

  test('an Ingress the model would leave out is refused with the text the log gives', async () => {
    const bad = ingress('bad', { className: 'portico', host: 'bad.example.com', paths: [{ path: '/x { return 200; }', type: 'Prefix', service: 'web' }] });
    const r = await post(review('CREATE', bad));
    const res = r.json().response;
    assert.equal(res.allowed, false);
    assert.equal(res.status?.code, 400);
    // The same Ingress in a store: the warning the controller logs (and turns into an Event) has the same text.
    const lines: string[] = [];
    const reporter = new ProblemReporter(
      createLogger(
        'warn',
        new Writable({
          write(c: Buffer, _e, cb) {
            lines.push(c.toString('utf8'));
            cb();
          },
        }),
      ),
    );
    reporter.report(buildModel({ ...store.snapshot(), ingresses: [bad] }, OPTS).problems);
    const msg = (JSON.parse(lines[0]!) as { msg: string }).msg;
    assert.equal(res.status?.message, msg);
    assert.match(msg, /^Ingress default\/bad spec\.rules\[0\]\.http\.paths\[0\]\.path: .* is not a valid path/);
  });

  test('an invalid annotation value is judged as a sync serves it, naming the annotation (the same annotation stage a sync runs)', async () => {
    const bad = (annotations: Record<string, string>) =>
      ingress('bad-annotation', { className: 'portico', host: 'ann.example.com', annotations, paths: [{ path: '/', type: 'Prefix', service: 'web' }] });
    // proxy-body-size fails open (docs/adr/0016; it used to be refused): admitted with a warning, served without it
    const open = (await post(review('CREATE', bad({ 'nginx.ingress.kubernetes.io/proxy-body-size': '1m; include /etc/passwd' })))).json().response;
    assert.equal(open.allowed, true);
    assert.match(open.warnings?.join('\n') ?? '', /nginx\.ingress\.kubernetes\.io\/proxy-body-size.*served without this annotation/);
    // whitelist-source-range fails closed: refused, naming it
    const res = (await post(review('CREATE', bad({ 'nginx.ingress.kubernetes.io/whitelist-source-range': '10.0.0.0/8; allow all' })))).json().response;
    assert.equal(res.allowed, false);
    assert.match(res.status?.message ?? '', /nginx\.ingress\.kubernetes\.io\/whitelist-source-range/);
    // --snippet-mode=safe (the default) takes an allowlisted snippet and refuses the rest, naming the directive and its line.
    const snippet = (text: string) =>
      ingress('snippet', {
        className: 'portico',
        host: 'snip.example.com',
        annotations: { 'nginx.ingress.kubernetes.io/configuration-snippet': text },
        paths: [{ path: '/', type: 'Prefix', service: 'web' }],
      });
    const refused = (await post(review('CREATE', snippet('proxy_pass http://127.0.0.1:10246/;')))).json().response;
    assert.equal(refused.allowed, false);
    assert.match(refused.status?.message ?? '', /directive proxy_pass at line 1/);
    assert.equal((await post(review('CREATE', snippet('return 200;')))).json().response.allowed, true);
  });

  test('a regex that backtracks exponentially is refused at admission: use-regex path and canary-by-header-pattern', async () => {
    const A = 'nginx.ingress.kubernetes.io';
    const path = ingress('nested', { className: 'portico', host: 'rx.example.com', annotations: { [`${A}/use-regex`]: 'true' }, paths: [{ path: '/x/(a+)+$', type: 'Prefix', service: 'web' }] });
    const res = (await post(review('CREATE', path))).json().response;
    assert.equal(res.allowed, false);
    assert.equal(res.status?.message, `Ingress default/nested spec.rules[0].http.paths[0].path: "/x/(a+)+$" is refused: ${regexSafety('/x/(a+)+$') ?? ''}`);
    const canary = ingress('pattern', {
      className: 'portico',
      host: 'app-3.example.com',
      annotations: { [`${A}/canary`]: 'true', [`${A}/canary-by-header`]: 'x', [`${A}/canary-by-header-pattern`]: '(x+x+)+y' },
      paths: [{ path: '/', type: 'Prefix', service: 'web' }],
    });
    const refused = (await post(review('CREATE', canary))).json().response;
    assert.equal(refused.allowed, false);
    assert.match(refused.status?.message ?? '', /canary-by-header-pattern.*nested quantifier in "\(x\+x\+\)\+"/);
    const plain = ingress('plain', { className: 'portico', host: 'rx.example.com', annotations: { [`${A}/use-regex`]: 'true' }, paths: [{ path: '/x/a+$', type: 'Prefix', service: 'web' }] });
    assert.equal((await post(review('CREATE', plain))).json().response.allowed, true);
  });

  test('a host and path already served by an older Ingress is refused; updating that older one is not', async () => {
    const clash = ingress('clash', { className: 'portico', host: 'app-7.example.com', paths: [{ path: '/', type: 'Prefix', service: 'web' }], created: '2026-02-01T00:00:00Z' });
    const r = (await post(review('CREATE', clash))).json().response;
    assert.equal(r.allowed, false);
    assert.equal(r.status?.message, 'Ingress default/clash spec.rules[0].http.paths[0].path: Prefix app-7.example.com/ is already served by the older Ingress default/app-7');
    const update = ingress('app-7', { className: 'portico', host: 'app-7.example.com', paths: [{ path: '/', type: 'Prefix', service: 'web' }] });
    assert.equal((await post(review('UPDATE', update))).json().response.allowed, true);
  });

  test('a missing Service is allowed with a warning (the path answers 503 until it exists)', async () => {
    const r = (await post(review('CREATE', ingress('early', { className: 'portico', host: 'early.example.com', paths: [{ path: '/', type: 'Prefix', service: 'later' }] })))).json().response;
    assert.equal(r.allowed, true);
    assert.deepEqual(r.warnings, ['Ingress default/early spec.rules[0].http.paths[0].backend: Service default/later not found; the path answers 503']);
  });

  test('Ingresses of other classes, and deletes, are allowed without a look', async () => {
    const foreign = ingress('foreign', { className: 'other', host: 'x;y', paths: [{ path: '/$x', type: 'Prefix', service: 'Bad_Name' }] });
    assert.equal((await post(review('CREATE', foreign))).json().response.allowed, true);
    const legacy = ingress('legacy', { annotations: { 'kubernetes.io/ingress.class': 'nginx' }, host: 'x;y', paths: [{ path: '/$x', type: 'Prefix', service: 'web' }] });
    assert.equal((await post(review('UPDATE', legacy))).json().response.allowed, true);
    assert.equal((await post(review('DELETE', legacy))).json().response.allowed, true);
  });

  test('what is not an AdmissionReview v1 POST is answered 4xx', async () => {
    assert.equal((await post('not json')).status, 400);
    assert.equal((await post({ apiVersion: 'admission.k8s.io/v1beta1', kind: 'AdmissionReview', request: { uid: 'x' } })).status, 400);
    assert.equal((await post({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' })).status, 400);
    assert.equal((await post({}, 'GET')).status, 405);
    const malformed = (await post(review('CREATE', { metadata: { name: 'm', namespace: 'default' }, spec: { ingressClassName: 'portico', rules: [{ host: 7 }] } }))).json().response;
    assert.equal(malformed.allowed, false);
  });

  test(`answer time with ${STORE_SIZE} Ingresses in the store (printed, not asserted)`, async () => {
    const times: number[] = [];
    for (let i = 0; i < 20; i++) {
      const started = performance.now();
      await post(review('CREATE', ingress(`t-${i}`, { className: 'portico', host: `app-${i}.example.com`, paths: [{ path: `/t${i}`, type: 'Prefix', service: 'web' }] })));
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    console.log(`webhook answer over HTTPS with ${STORE_SIZE} Ingresses: median ${times[10]!.toFixed(1)} ms, max ${times[19]!.toFixed(1)} ms`);
  });

  test('answering started no process and wrote no file', async () => {
    assert.deepEqual(hooks.calls, []);
    assert.deepEqual(children(), childrenBefore);
    assert.ok(
      logged.some((l) => l.includes('admission refused')),
      'refusals are logged',
    );
    // The hooks see writes through named ESM imports too, so an empty list means something.
    writeFileSync(join(certDir, 'probe-sync'), 'x');
    await writeFile(join(certDir, 'probe-async'), 'x');
    assert.equal(hooks.calls.length, 2, hooks.calls.join(', '));
  });
});
