// The target policy (model/targets.ts) over a table of address and URL forms, and where the model applies it:
// EndpointSlice endpoints, service-upstream cluster IPs, mirror-target and auth-url. Tables are compared whole.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classify, inetAton, parseIp, refuseAddress, refuseUrl, type TargetPolicy } from '../../src/model/targets.js';
import { buildModel } from '../../src/model/build.js';
import { refreshEndpoints } from '../../src/model/refresh.js';
import { selectIngresses } from '../../src/annotations/select.js';
import { classSelector } from '../../src/model/classes.js';
import type { ModelOptions, Snapshot } from '../../src/model/input.js';
import { ingress, ingressClass, service, slice } from '../support/objects.js';

const STRICT: TargetPolicy = { ownPorts: [8080, 8443, 10246, 10254], allowLoopback: false, allowCidrs: [] };
const LOCAL: TargetPolicy = { ...STRICT, allowLoopback: true };
const CIDRS: TargetPolicy = { ...STRICT, allowCidrs: ['169.254.20.10/32', '127.0.0.0/8', 'fe80::/64'] };

test('classify: every refused class in every written form; ordinary addresses pass', () => {
  const forms = [
    '127.0.0.1',
    '127.255.255.254',
    '127.000.000.001',
    '::1',
    '0:0:0:0:0:0:0:1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::FFFF:7F00:0001',
    '::ffff:0:127.0.0.1',
    '::127.0.0.1',
    '64:ff9b::127.0.0.1',
    '64:ff9b::7f00:1',
    '169.254.169.254',
    '169.254.20.10',
    '::ffff:169.254.169.254',
    '::ffff:a9fe:a9fe',
    'fe80::1',
    'febf:ffff::1',
    '0.0.0.0',
    '0.1.2.3',
    '::',
    '0::0',
    '::ffff:0.0.0.0',
    '::ffff:0:0',
    '224.0.0.1',
    '239.255.255.250',
    'ff02::1',
    '::ffff:224.0.0.1',
    '255.255.255.255',
    '240.0.0.1',
    '::ffff:ffff:ffff',
    '10.0.0.1',
    '192.168.1.1',
    '8.8.8.8',
    '126.255.255.255',
    '128.0.0.1',
    '169.253.255.255',
    '169.255.0.1',
    'fd00::1',
    'fec0::1',
    '2001:db8::1',
    '::ffff:10.0.0.1',
    '::ffff:a00:1',
    'fe7f::1',
    '1::',
    '::2',
    'not-an-ip',
    '1.2.3',
    '1.2.3.4.5',
    '256.0.0.1',
    '1::2::3',
    ':::1',
    'fe80::1%eth0',
    '[::1]',
    '1:2:3:4:5:6:7:8:9',
  ];
  const got = Object.fromEntries(
    forms.map((f) => {
      const b = parseIp(f);
      return [f, b === undefined ? 'unparsed' : (classify(b) ?? 'ok')];
    }),
  );
  assert.deepEqual(got, {
    '127.0.0.1': 'loopback',
    '127.255.255.254': 'loopback',
    '127.000.000.001': 'loopback',
    '::1': 'loopback',
    '0:0:0:0:0:0:0:1': 'loopback',
    '::ffff:127.0.0.1': 'loopback',
    '::ffff:7f00:1': 'loopback',
    '::FFFF:7F00:0001': 'loopback',
    '::ffff:0:127.0.0.1': 'loopback',
    '::127.0.0.1': 'loopback',
    '64:ff9b::127.0.0.1': 'loopback',
    '64:ff9b::7f00:1': 'loopback',
    '169.254.169.254': 'link-local',
    '169.254.20.10': 'link-local',
    '::ffff:169.254.169.254': 'link-local',
    '::ffff:a9fe:a9fe': 'link-local',
    'fe80::1': 'link-local',
    'febf:ffff::1': 'link-local',
    '0.0.0.0': 'unspecified',
    '0.1.2.3': 'unspecified',
    '::': 'unspecified',
    '0::0': 'unspecified',
    '::ffff:0.0.0.0': 'unspecified',
    '::ffff:0:0': 'unspecified',
    '224.0.0.1': 'multicast',
    '239.255.255.250': 'multicast',
    'ff02::1': 'multicast',
    '::ffff:224.0.0.1': 'multicast',
    '255.255.255.255': 'reserved',
    '240.0.0.1': 'reserved',
    '::ffff:ffff:ffff': 'reserved',
    '10.0.0.1': 'ok',
    '192.168.1.1': 'ok',
    '8.8.8.8': 'ok',
    '126.255.255.255': 'ok',
    '128.0.0.1': 'ok',
    '169.253.255.255': 'ok',
    '169.255.0.1': 'ok',
    'fd00::1': 'ok',
    'fec0::1': 'ok',
    '2001:db8::1': 'ok',
    '::ffff:10.0.0.1': 'ok',
    '::ffff:a00:1': 'ok',
    'fe7f::1': 'ok',
    '1::': 'ok',
    '::2': 'unspecified',
    'not-an-ip': 'unparsed',
    '1.2.3': 'unparsed',
    '1.2.3.4.5': 'unparsed',
    '256.0.0.1': 'unparsed',
    '1::2::3': 'unparsed',
    ':::1': 'unparsed',
    'fe80::1%eth0': 'unparsed',
    '[::1]': 'unparsed',
    '1:2:3:4:5:6:7:8:9': 'unparsed',
  });
});

test('refuseAddress: own ports on loopback never; loopback only when allowed; CIDRs allow their range only', () => {
  const cases: [string, number][] = [
    ['127.0.0.1', 10246],
    ['::ffff:127.0.0.1', 10246],
    ['::1', 8080],
    ['127.0.0.1', 3000],
    ['::ffff:7f00:1', 3000],
    ['::1', 3000],
    ['169.254.169.254', 80],
    ['::ffff:a9fe:a9fe', 80],
    ['169.254.20.10', 53],
    ['169.254.20.11', 53],
    ['fe80::1', 80],
    ['fe80:0:0:1::1', 80],
    ['0.0.0.0', 3000],
    ['10.0.0.1', 10246],
    ['10.0.0.1', 80],
  ];
  const verdicts = (p: TargetPolicy): string => cases.map(([a, port]) => `${a}:${port} ${refuseAddress(a, port, p) === undefined ? 'allowed' : 'refused'}`).join('\n');
  assert.deepEqual(verdicts(STRICT).split('\n'), [
    '127.0.0.1:10246 refused',
    '::ffff:127.0.0.1:10246 refused',
    '::1:8080 refused',
    '127.0.0.1:3000 refused',
    '::ffff:7f00:1:3000 refused',
    '::1:3000 refused',
    '169.254.169.254:80 refused',
    '::ffff:a9fe:a9fe:80 refused',
    '169.254.20.10:53 refused',
    '169.254.20.11:53 refused',
    'fe80::1:80 refused',
    'fe80:0:0:1::1:80 refused',
    '0.0.0.0:3000 refused',
    '10.0.0.1:10246 allowed',
    '10.0.0.1:80 allowed',
  ]);
  assert.deepEqual(verdicts(LOCAL).split('\n'), [
    '127.0.0.1:10246 refused',
    '::ffff:127.0.0.1:10246 refused',
    '::1:8080 refused',
    '127.0.0.1:3000 allowed',
    '::ffff:7f00:1:3000 allowed',
    '::1:3000 allowed',
    '169.254.169.254:80 refused',
    '::ffff:a9fe:a9fe:80 refused',
    '169.254.20.10:53 refused',
    '169.254.20.11:53 refused',
    'fe80::1:80 refused',
    'fe80:0:0:1::1:80 refused',
    '0.0.0.0:3000 refused',
    '10.0.0.1:10246 allowed',
    '10.0.0.1:80 allowed',
  ]);
  assert.deepEqual(verdicts(CIDRS).split('\n'), [
    '127.0.0.1:10246 refused',
    '::ffff:127.0.0.1:10246 refused',
    '::1:8080 refused',
    '127.0.0.1:3000 allowed',
    '::ffff:7f00:1:3000 allowed',
    '::1:3000 refused',
    '169.254.169.254:80 refused',
    '::ffff:a9fe:a9fe:80 refused',
    '169.254.20.10:53 allowed',
    '169.254.20.11:53 refused',
    'fe80::1:80 allowed',
    'fe80:0:0:1::1:80 refused',
    '0.0.0.0:3000 refused',
    '10.0.0.1:10246 allowed',
    '10.0.0.1:80 allowed',
  ]);
  assert.equal(refuseAddress('127.0.0.1', 10246, LOCAL), "127.0.0.1 port 10246 is loopback on one of Portico's own ports (the controller's endpoints); never allowed");
  assert.equal(refuseAddress('169.254.169.254', 80, STRICT), '169.254.169.254 is a link-local address; targets may not be link-local unless the operator allows it (--allow-upstream-cidrs)');
  assert.equal(refuseAddress('::1', 3000, STRICT), '::1 is a loopback address; targets may not be loopback unless the operator allows it (--allow-loopback-upstreams or --allow-upstream-cidrs)');
});

test('inetAton reads numeric hosts as glibc does', () => {
  const hosts = ['2130706433', '0x7f.1', '127.1', '0177.0.0.1', '0x7f000001', '017700000001', '127.0.1', '10.0.0.1', '4294967296', '1.2.3.4.5', '08.1.1.1', '0x.1'];
  assert.deepEqual(Object.fromEntries(hosts.map((h) => [h, inetAton(h)?.join('.') ?? 'none'])), {
    '2130706433': '127.0.0.1',
    '0x7f.1': '127.0.0.1',
    '127.1': '127.0.0.1',
    '0177.0.0.1': '127.0.0.1',
    '0x7f000001': '127.0.0.1',
    '017700000001': '127.0.0.1',
    '127.0.1': '127.0.0.1',
    '10.0.0.1': '10.0.0.1',
    '4294967296': 'none',
    '1.2.3.4.5': 'none',
    '08.1.1.1': 'none',
    '0x.1': '0.0.0.1',
  });
});

test('refuseUrl: literal IPs, loopback names and numeric hosts, with the default port of the scheme', () => {
  const urls = [
    'http://127.0.0.1:10246$request_uri',
    'http://127.0.0.1:10246/configuration/backends',
    'http://127.0.0.1:3000/x',
    'http://127.0.0.1/x',
    'https://127.0.0.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://0.0.0.0:3000/',
    'http://localhost:3000/',
    'http://LOCALHOST.:10246/',
    'http://a.localhost:3000/',
    'http://localhost.localdomain:3000/',
    'http://ip6-localhost:3000/',
    'http://2130706433:3000/',
    'http://0x7f.1:3000/',
    'http://127.1:3000/',
    'http://0177.0.0.1:3000/',
    'http://10.0.0.9:8080/auth',
    'http://auth.example.test/check',
    'https://m.test/x$request_uri',
    'http://localhost.example.com/',
    'http://[::1]:3000/',
    'http://[::ffff:a9fe:a9fe]/',
    'http://010.0.0.1/',
  ];
  const verdicts = (p: TargetPolicy): Record<string, string> => Object.fromEntries(urls.map((u) => [u, refuseUrl(u, p) === undefined ? 'allowed' : 'refused']));
  const local = verdicts({ ...LOCAL, ownPorts: [80, 10246] });
  assert.deepEqual(verdicts(STRICT), Object.fromEntries(urls.map((u) => [u, /10\.0\.0\.9|example\.test|m\.test|localhost\.example\.com/.test(u) ? 'allowed' : 'refused'])));
  assert.deepEqual(local, {
    'http://127.0.0.1:10246$request_uri': 'refused',
    'http://127.0.0.1:10246/configuration/backends': 'refused',
    'http://127.0.0.1:3000/x': 'allowed',
    'http://127.0.0.1/x': 'refused',
    'https://127.0.0.1/': 'allowed',
    'http://169.254.169.254/latest/meta-data/': 'refused',
    'http://0.0.0.0:3000/': 'refused',
    'http://localhost:3000/': 'allowed',
    'http://LOCALHOST.:10246/': 'refused',
    'http://a.localhost:3000/': 'allowed',
    'http://localhost.localdomain:3000/': 'allowed',
    'http://ip6-localhost:3000/': 'allowed',
    'http://2130706433:3000/': 'refused',
    'http://0x7f.1:3000/': 'refused',
    'http://127.1:3000/': 'refused',
    'http://0177.0.0.1:3000/': 'refused',
    'http://10.0.0.9:8080/auth': 'allowed',
    'http://auth.example.test/check': 'allowed',
    'https://m.test/x$request_uri': 'allowed',
    'http://localhost.example.com/': 'allowed',
    'http://[::1]:3000/': 'allowed',
    'http://[::ffff:a9fe:a9fe]/': 'refused',
    'http://010.0.0.1/': 'refused',
  });
  assert.equal(refuseUrl('http://0x7f.1:3000/', STRICT), '"http://0x7f.1:3000/": 0x7f.1 is a numeric host that resolvers read as 127.0.0.1; write an IPv4 address as a.b.c.d');
  assert.equal(
    refuseUrl('http://localhost:10246/', LOCAL),
    '"http://localhost:10246/": localhost resolves to loopback: 127.0.0.1 port 10246 is loopback on one of Portico\'s own ports (the controller\'s endpoints); never allowed',
  );
});

const OPTS: ModelOptions = {
  controllerClass: 'portico.dev/ingress-controller',
  ingressClass: 'portico',
  watchIngressWithoutClass: false,
  defaultBackendService: undefined,
  loadBalance: 'round_robin',
  targets: LOCAL,
};

function snap(addresses: string[], clusterIP?: string, annotations?: Record<string, string>): Snapshot {
  const svc = service('web');
  return {
    ingresses: [ingress('a', { className: 'portico', host: 'a.test', paths: [{ path: '/', type: 'Prefix', service: 'web' }], ...(annotations ? { annotations } : {}) })],
    ingressClasses: [ingressClass('portico')],
    services: [clusterIP ? { ...svc, spec: { ...svc.spec, clusterIP } } : svc],
    endpointSlices: [slice('web', 10246, addresses, { name: 'web-x' }), slice('web', 3000, ['127.0.0.1', '169.254.169.254'], { name: 'web-y' })],
    secrets: [],
    configMaps: [],
  };
}

test('model: refused endpoints are left out with one degraded Problem each; the fast path gives the same', () => {
  const s = snap(['10.0.0.1', '127.0.0.1', '::ffff:127.0.0.1']);
  const m = buildModel(s, OPTS);
  assert.deepEqual(
    m.upstreams.map((u) => [u.name, u.endpoints]),
    [
      [
        'default_web_80',
        [
          { address: '10.0.0.1', port: 10246 },
          { address: '127.0.0.1', port: 3000 },
        ],
      ],
    ],
  );
  assert.deepEqual(m.problems, [
    {
      object: { kind: 'EndpointSlice', namespace: 'default', name: 'web-x' },
      field: 'endpoints[1].addresses[0]',
      severity: 'degraded',
      code: 'EndpointRefused',
      reason:
        "endpoint 127.0.0.1 port 10246 of Service default/web is refused: 127.0.0.1 port 10246 is loopback on one of Portico's own ports (the controller's endpoints); never allowed; it is left out",
    },
    {
      object: { kind: 'EndpointSlice', namespace: 'default', name: 'web-x' },
      field: 'endpoints[2].addresses[0]',
      severity: 'degraded',
      code: 'EndpointRefused',
      reason:
        "endpoint ::ffff:127.0.0.1 port 10246 of Service default/web is refused: ::ffff:127.0.0.1 port 10246 is loopback on one of Portico's own ports (the controller's endpoints); never allowed; it is left out",
    },
    {
      object: { kind: 'EndpointSlice', namespace: 'default', name: 'web-y' },
      field: 'endpoints[1].addresses[0]',
      severity: 'degraded',
      code: 'EndpointRefused',
      reason:
        'endpoint 169.254.169.254 port 3000 of Service default/web is refused: 169.254.169.254 is a link-local address; targets may not be link-local unless the operator allows it (--allow-upstream-cidrs); it is left out',
    },
  ]);
  const later = snap(['10.0.0.2', '0.0.0.0']);
  assert.deepEqual(refreshEndpoints(m, later, LOCAL), buildModel(later, OPTS));
  const none = buildModel(s, { ...OPTS, targets: undefined });
  assert.deepEqual(none.upstreams[0]?.endpoints, [{ address: '10.0.0.1', port: 10246 }], 'no policy given: the strictest');
});

test('model: a refused cluster IP turns service-upstream off with a Problem; the pods stay', () => {
  const s = snap(['10.0.0.1'], '169.254.169.254', { 'nginx.ingress.kubernetes.io/service-upstream': 'true' });
  const sel = selectIngresses(s, new Map(), {
    prefix: 'nginx.ingress.kubernetes.io',
    riskLevel: 'High',
    allowSnippets: false,
    strictPaths: true,
    ours: classSelector(s.ingressClasses, OPTS),
    targets: LOCAL,
  });
  const m = buildModel(sel.snapshot, OPTS, sel.input);
  assert.deepEqual(m.upstreams[0]?.endpoints, [
    { address: '10.0.0.1', port: 10246 },
    { address: '127.0.0.1', port: 3000 },
  ]);
  assert.deepEqual(
    m.problems.filter((p) => p.field.includes('service-upstream')).map((p) => p.reason),
    [
      'Service default/web cluster IP refused: 169.254.169.254 is a link-local address; targets may not be link-local unless the operator allows it (--allow-upstream-cidrs); service-upstream is ignored and the pod endpoints are used',
    ],
  );
});

test('annotation stage: a refused mirror-target or auth-url is a refused annotation; redirects are not targets', () => {
  const s = snap(['10.0.0.1'], undefined, {
    'nginx.ingress.kubernetes.io/mirror-target': 'http://127.0.0.1:10246$request_uri',
    'nginx.ingress.kubernetes.io/auth-url': 'http://169.254.169.254/latest',
    'nginx.ingress.kubernetes.io/auth-signin': 'http://127.0.0.1:10246/login',
  });
  const sel = selectIngresses(s, new Map(), {
    prefix: 'nginx.ingress.kubernetes.io',
    riskLevel: 'High',
    allowSnippets: false,
    strictPaths: true,
    ours: classSelector(s.ingressClasses, OPTS),
    targets: LOCAL,
  });
  assert.deepEqual(sel.snapshot.ingresses, []);
  assert.deepEqual(
    sel.problems.map((p) => [p.field, p.severity, p.reason]),
    [
      [
        'metadata.annotations[nginx.ingress.kubernetes.io/mirror-target]',
        'dropped',
        '"http://127.0.0.1:10246$request_uri": its host: 127.0.0.1 port 10246 is loopback on one of Portico\'s own ports (the controller\'s endpoints); never allowed; the Ingress is not served',
      ],
      [
        'metadata.annotations[nginx.ingress.kubernetes.io/auth-url]',
        'dropped',
        '"http://169.254.169.254/latest": its host: 169.254.169.254 is a link-local address; targets may not be link-local unless the operator allows it (--allow-upstream-cidrs); the Ingress is not served',
      ],
    ],
  );
});

test('admission: the webhook judge gets the policy from the flags (own ports, loopback in a pod)', async () => {
  const { parseFlags } = await import('../../src/config/flags.js');
  const { admissionChecker } = await import('../../src/pipeline/build.js');
  const { createLogger } = await import('../../src/log.js');
  const config = parseFlags(['--kubeconfig', '/dev/null', '--status-port', '10999'], { POD_NAME: 'portico-0' });
  const checker = admissionChecker(config, createLogger('silent'));
  assert.deepEqual(checker.options.targets, { ownPorts: [80, 443, 10254, 10999], allowLoopback: false, allowCidrs: [] });
  const s = snap(['10.0.0.1'], undefined, { 'nginx.ingress.kubernetes.io/mirror-target': 'http://localhost:3000/' });
  assert.deepEqual(
    checker
      .problems(s)
      .filter((p) => p.object.kind === 'Ingress')
      .map((p) => p.reason),
    [
      // mirror-target fails open (docs/adr/0016): the Ingress is served without the mirror
      '"http://localhost:3000/": localhost resolves to loopback: 127.0.0.1 is a loopback address; targets may not be loopback unless the operator allows it (--allow-loopback-upstreams or --allow-upstream-cidrs); the Ingress is served without this annotation',
    ],
  );
});
