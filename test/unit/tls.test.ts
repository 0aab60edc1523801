// The pure TLS parts: translation to the TLS model, annotations, rendered lines, payload, plan, redaction.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { buildModel } from '../../src/model/build.js';
import type { ModelOptions, Snapshot } from '../../src/model/input.js';
import { matchCnRefusal } from '../../src/annotations/table-tls.js';
import { parseAnnotations } from '../../src/annotations/parse.js';
import type { AnnotationInput, IngressSettings } from '../../src/model/settings.js';
import { DEFAULT_TLS_SETTINGS, Sensitive, type TlsModel } from '../../src/model/tls-types.js';
import { certificatesPayload, clientCertHeaders, tlsLocationLines, tlsServerLines } from '../../src/render/tls.js';
import { clientFilesChanged, planApply } from '../../src/apply/plan.js';
import { makeCert, type Pem } from '../support/certs.js';
import { ingressClass, service } from '../support/objects.js';
import { caSecret, hostIngress, tlsSecret } from '../support/tls-manifests.js';

const OPTS: ModelOptions = {
  controllerClass: 'portico.dev/ingress-controller',
  ingressClass: 'portico',
  watchIngressWithoutClass: false,
  defaultBackendService: undefined,
  loadBalance: 'round_robin',
  tls: { annotationsPrefix: 'example.com', defaultCertificate: { namespace: 'default', name: 'def' }, settings: DEFAULT_TLS_SETTINGS },
};

function snapshot(parts: Partial<Snapshot>): Snapshot {
  return { ingresses: [], ingressClasses: [ingressClass('portico')], services: [service('web')], endpointSlices: [], secrets: [], configMaps: [], ...parts };
}

/** What the annotation table reads from the snapshot's Ingresses (prefix example.com): the one reader of the TLS annotations. */
function parsed(snap: Snapshot): AnnotationInput {
  const settings = new Map<string, IngressSettings>();
  for (const ing of snap.ingresses) {
    const namespace = ing.metadata?.namespace ?? 'default';
    const r = parseAnnotations(ing.metadata?.annotations, { prefix: 'example.com', riskLevel: 'Critical', allowSnippets: false, namespace });
    assert.deepEqual(r.errors, []);
    settings.set(`${namespace}/${ing.metadata?.name ?? ''}`, r.settings);
  }
  return { settings, strictPaths: true };
}

void describe('TLS model', () => {
  let dir: string;
  let a: Pem;
  let wild: Pem;
  let def: Pem;
  let ca: Pem;
  let tls: TlsModel;
  let problems: unknown[];

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'portico-tls-unit-'));
    a = makeCert(dir, 'a.test', { sans: ['a.test'] });
    wild = makeCert(dir, '*.w.test', { sans: ['*.w.test'] });
    def = makeCert(dir, 'def.test', { sans: ['def.test'] });
    ca = makeCert(dir, 'CA', { isCa: true });
    const snap = snapshot({
      secrets: [tlsSecret('a', a), tlsSecret('wild', wild), tlsSecret('def', def), caSecret('ca', ca.cert)],
      ingresses: [
        hostIngress('one', 'a.test', { created: '2026-01-01T00:00:00Z', tls: [{ hosts: ['a.test', 'A.W.test'], secretName: 'a' }] }),
        hostIngress('two', 'a.test', {
          created: '2026-01-02T00:00:00Z',
          tls: [{ hosts: ['a.test'], secretName: 'wild' }, { hosts: ['x.w.test', '*.w.test'], secretName: 'wild' }, { hosts: ['nosecret.test'] }],
        }),
        hostIngress('three', 'x.w.test', {
          created: '2026-01-03T00:00:00Z',
          annotations: { 'example.com/ssl-redirect': 'false', 'example.com/auth-tls-secret': 'ca', 'example.com/auth-tls-verify-client': 'optional' },
        }),
        hostIngress('four', 'gone.test', { created: '2026-01-04T00:00:00Z', annotations: { 'example.com/auth-tls-secret': 'other/ca' } }),
      ],
    });
    const model = buildModel(snap, OPTS, parsed(snap));
    tls = model.tls;
    problems = model.problems.filter((p) => p.field.startsWith('spec.tls') || p.field.startsWith('metadata'));
    rmSync(dir, { recursive: true, force: true });
  });

  const info = (p: Pem, subject: string, names: string[]) => ({ subject, issuer: subject, fingerprint: p.fingerprint, dnsNames: names });

  void it('maps TLS hosts to certificates (oldest Ingress wins), servers and Ingress settings, whole', () => {
    // Validity dates depend on the clock at generation; the test checks they are ISO dates, then compares the rest whole.
    for (const c of tls.certificates) assert.match(`${c.notBefore} ${c.notAfter}`, /^\d{4}-\d\d-\d\dT\S+Z \d{4}-\d\d-\d\dT\S+Z$/);
    const strip = {
      ...tls,
      certificates: tls.certificates.map((c) => ({
        id: c.id,
        secret: c.secret,
        subject: c.subject,
        issuer: c.issuer,
        fingerprint: c.fingerprint,
        dnsNames: c.dnsNames,
        pem: c.pem instanceof Sensitive,
      })),
    };
    const ing = (name: string) => ({ kind: 'Ingress', namespace: 'default', name });
    const caAuth = tls.servers.find((s) => s.host === 'x.w.test')?.clientAuth;
    assert.deepEqual(strip, {
      settings: DEFAULT_TLS_SETTINGS,
      certificates: [
        { id: 'default/a', secret: { kind: 'Secret', namespace: 'default', name: 'a' }, ...info(a, 'CN=a.test', ['a.test']), pem: true },
        { id: 'default/def', secret: { kind: 'Secret', namespace: 'default', name: 'def' }, ...info(def, 'CN=def.test', ['def.test']), pem: true },
        { id: 'default/wild', secret: { kind: 'Secret', namespace: 'default', name: 'wild' }, ...info(wild, 'CN=*.w.test', ['*.w.test']), pem: true },
      ],
      hosts: [
        { host: '*.w.test', ingress: ing('two'), certificate: 'default/wild' },
        { host: 'a.test', ingress: ing('one'), certificate: 'default/a' },
        { host: 'a.w.test', ingress: ing('one'), certificate: undefined },
        { host: 'nosecret.test', ingress: ing('two'), certificate: undefined },
        { host: 'x.w.test', ingress: ing('two'), certificate: 'default/wild' },
      ],
      defaultCertificate: 'default/def',
      servers: [
        { host: 'a.test', tls: true, clientAuth: undefined },
        {
          host: 'x.w.test',
          tls: true,
          clientAuth: {
            ingress: ing('three'),
            secret: { kind: 'Secret', namespace: 'default', name: 'ca' },
            caPem: `${ca.cert.trim()}\n`,
            crlPem: undefined,
            caDigest: caAuth?.caDigest,
            crlDigest: undefined,
            verify: 'optional',
            depth: 1,
            errorPage: undefined,
            passCertificate: false,
          },
        },
      ],
      ingresses: {
        'default/four': { sslRedirect: true, forceSslRedirect: false, denied: "Secret other/ca is in another namespace; only Secrets of the Ingress's own namespace are used" },
        'default/three': { sslRedirect: false, forceSslRedirect: false, denied: undefined },
      },
    });
    assert.match(caAuth?.caDigest ?? '', /^[0-9a-f]{64}$/);
  });

  void it('reports what it left out or degraded, naming Ingress and Secret', () => {
    assert.deepEqual(problems, [
      {
        object: { kind: 'Ingress', namespace: 'default', name: 'one' },
        field: 'spec.tls[0].secretName',
        severity: 'degraded',
        code: 'SecretProblem',
        reason: 'the certificate of Secret default/a (CN=a.test) does not cover a.w.test; a.w.test is served with the default certificate',
      },
      {
        object: { kind: 'Ingress', namespace: 'default', name: 'two' },
        field: 'spec.tls[0].hosts[0]',
        severity: 'degraded',
        reason: "the certificate of a.test comes from the older Ingress default/one (Secret default/a); this entry's is not used for it",
      },
      {
        object: { kind: 'Ingress', namespace: 'default', name: 'four' },
        field: 'metadata.annotations[example.com/auth-tls-secret]',
        severity: 'degraded',
        code: 'SecretProblem',
        reason: "Secret other/ca is in another namespace; only Secrets of the Ingress's own namespace are used; the paths of this Ingress answer 503",
      },
    ]);
  });

  void it("gives a rule host no spec.tls entry lists the first of its Ingress's certificates that covers it", () => {
    const d = mkdtempSync(join(tmpdir(), 'portico-tls-unit-'));
    try {
      const w = makeCert(d, '*.w.test', { sans: ['*.w.test'] });
      const b = makeCert(d, 'b.test', { sans: ['b.test'] });
      const m = buildModel(
        snapshot({
          secrets: [tlsSecret('wild', w), tlsSecret('b', b)],
          ingresses: [
            hostIngress('old', 'x.w.test', { created: '2026-01-01T00:00:00Z', tls: [{ secretName: 'b' }, { secretName: 'wild' }] }),
            hostIngress('plain', 'plain.test', { created: '2026-01-02T00:00:00Z', tls: [{ secretName: 'wild' }] }),
            hostIngress('young', 'x.w.test', { created: '2026-01-03T00:00:00Z', tls: [{ hosts: ['x.w.test'], secretName: 'b' }] }),
            hostIngress('missing', 'm.w.test', { created: '2026-01-04T00:00:00Z', tls: [{ secretName: 'nope' }] }),
          ],
        }),
        OPTS,
      );
      const ing = (name: string) => ({ kind: 'Ingress', namespace: 'default', name });
      assert.deepEqual(m.tls.hosts, [{ host: 'x.w.test', ingress: ing('old'), certificate: 'default/wild' }], 'plain.test: no certificate covers it');
      assert.deepEqual(
        m.tls.servers.map((s) => [s.host, s.tls]),
        [['x.w.test', true]],
      );
      assert.deepEqual(
        m.tls.certificates.map((c) => c.id),
        ['default/wild'],
      );
      assert.deepEqual(
        m.problems.filter((p) => p.field.startsWith('spec.tls')).map((p) => [p.object.name, p.field, p.reason]),
        [
          ['young', 'spec.tls[0].hosts[0]', "the certificate of x.w.test comes from the older Ingress default/old (Secret default/wild); this entry's is not used for it"],
          ['missing', 'spec.tls[0].secretName', 'Secret default/nope not found; the hosts of this Ingress are served with the default certificate'],
        ],
      );
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  });

  void it('renders server and location lines: hook, HSTS, client auth, redirect, denial', () => {
    assert.deepEqual(tlsServerLines(tls, 'x.w.test', '/w'), [
      '        ssl_certificate_by_lua_block { require("portico.certificate").call() }',
      '        more_set_headers "Strict-Transport-Security: $portico_hsts_header";',
      `        ssl_client_certificate "/w/ssl/ca-${tls.servers[1]!.clientAuth!.caDigest.slice(0, 32)}.pem";`,
      '        ssl_verify_client optional;',
      '        ssl_verify_depth 1;',
    ]);
    // the catch-all, nginx's default server on the TLS ports, holds the one static certificate (docs/adr/0052)
    assert.deepEqual(tlsServerLines(tls, '_', '/w'), [
      '        ssl_certificate "/w/ssl/default.crt";',
      '        ssl_certificate_key "/w/ssl/default.key";',
      '        ssl_certificate_by_lua_block { require("portico.certificate").call() }',
    ]);
    assert.equal(clientCertHeaders(tls, 'x.w.test'), 'verify', 'client auth: ssl-client-* headers in that server only');
    assert.equal(clientCertHeaders(tls, '_'), undefined);
    const loc = (name: string) => ({ match: 'prefix' as const, path: '/', target: { kind: 'upstream' as const, upstream: 'u', ingress: { kind: 'Ingress', namespace: 'default', name } } });
    const redirect = ['            if ($scheme = "http") { return 308 https://$portico_redirect_host$request_uri; }'];
    assert.deepEqual(tlsLocationLines(tls, 'a.test', loc('one')), redirect);
    assert.deepEqual(tlsLocationLines(tls, 'x.w.test', loc('three')), [], 'ssl-redirect: false');
    assert.deepEqual(tlsLocationLines(tls, 'gone.test', loc('four')), ['            return 503;']);
    assert.deepEqual(tlsLocationLines(tls, 'plain.test', { match: 'prefix', path: '/', target: { kind: 'not-found' } }), []);
  });

  void it('builds the Lua payload: hosts with a usable certificate, and the default', () => {
    const p = certificatesPayload(tls, 'FALLBACK');
    assert.deepEqual(Object.keys(p.certificates), ['*.w.test', 'a.test', 'x.w.test']);
    assert.equal(p.certificates['a.test'], `${a.cert.trim()}\n${a.key.trim()}\n`);
    assert.equal(p.default, `${def.cert.trim()}\n${def.key.trim()}\n`);
    assert.equal(certificatesPayload({ ...tls, defaultCertificate: undefined }, 'FALLBACK').default, 'FALLBACK');
  });

  void it('never serializes key material', () => {
    const text = JSON.stringify(tls) + inspect(tls, { depth: 10 }) + String(tls.certificates[0]?.pem);
    for (const line of a.key.split('\n').filter((l) => l.length > 20 && !l.startsWith('-'))) assert.ok(!text.includes(line));
    assert.ok(text.includes('[redacted]'));
  });
});

void describe('TLS annotations (the annotation table is their one reader)', () => {
  const P = 'nginx.ingress.kubernetes.io';
  const read = (a: Record<string, string>) => parseAnnotations(a, { prefix: P, riskLevel: 'Critical', allowSnippets: false, namespace: 'ns' });
  void it('reads booleans as Go does; a bad value is refused naming the annotation (the Ingress keeps its last valid form)', () => {
    const r = read({ [`${P}/ssl-redirect`]: 'False', [`${P}/force-ssl-redirect`]: 'yes' });
    assert.deepEqual([r.settings.location.sslRedirect, r.settings.location.forceSslRedirect, r.settings.authTls], [false, undefined, undefined]);
    assert.deepEqual(r.errors, [{ annotation: `${P}/force-ssl-redirect`, reason: '"yes" is not a boolean (true or false)' }]);
  });
  void it('reads auth-tls-* with defaults, and refuses an error page that could break out of nginx.conf', () => {
    assert.deepEqual(read({ [`${P}/auth-tls-secret`]: 'ns/ca' }).settings.authTls, { secret: 'ns/ca', verify: 'on', depth: 1, errorPage: undefined, passCertificate: false });
    const r = read({ [`${P}/auth-tls-secret`]: 'ns/ca', [`${P}/auth-tls-verify-depth`]: '0', [`${P}/auth-tls-error-page`]: 'https://x/"; return 200;' });
    assert.deepEqual(
      r.errors.map((e) => e.annotation),
      [`${P}/auth-tls-error-page`, `${P}/auth-tls-verify-depth`],
    );
    assert.equal(read({ 'other.io/auth-tls-secret': 'ca' }).settings.authTls, undefined, 'only the configured prefix is read');
    assert.equal(read({ [`${P}/auth-tls-verify-client`]: 'optional' }).settings.authTls, undefined, 'nothing without auth-tls-secret');
  });
  void it('reads auth-tls-match-cn; a value that could backtrack exponentially is refused', () => {
    const ok = read({ [`${P}/auth-tls-secret`]: 'ca', [`${P}/auth-tls-match-cn`]: ' CN=(a|b)$ ' });
    assert.equal(ok.settings.authTls?.matchCn, 'CN=(a|b)$');
    assert.deepEqual(ok.errors, []);
    const slow = read({ [`${P}/auth-tls-secret`]: 'ca', [`${P}/auth-tls-match-cn`]: 'CN=(a+)+$' });
    assert.deepEqual(
      slow.errors.map((e) => e.annotation),
      [`${P}/auth-tls-match-cn`],
    );
    assert.equal(matchCnRefusal('CN=x"; return 200; #'), '"CN=x\\"; return 200; #" is not a pattern (printable ASCII without spaces or quotes, 1 to 256 characters)');
    assert.match(matchCnRefusal('O=x') ?? '', /does not name CN=/);
  });
});

void describe('plan with certificates', () => {
  const s = { confHash: 'h', backends: '[]', certificates: 'c1', clientFiles: 'f' };
  void it('is dynamic for a certificate-only change, noop when equal, reload for nginx.conf', () => {
    assert.equal(planApply(s, { ...s, certificates: 'c2' }), 'dynamic');
    assert.equal(planApply(s, { ...s }), 'noop');
    assert.equal(planApply(s, { ...s, confHash: 'h2', clientFiles: 'g' }), 'reload');
    assert.equal(clientFilesChanged(s, { ...s, confHash: 'h2', clientFiles: 'g' }), true);
    assert.equal(clientFilesChanged(s, { ...s, confHash: 'h2' }), false);
    assert.equal(clientFilesChanged(undefined, s), false);
  });
});
