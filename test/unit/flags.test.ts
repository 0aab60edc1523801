// Flags: ingress-nginx's names and forms (--flag=value, -flag, --bool=true), defaults, and clear errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CONFIG_FLAGS } from '../../src/config/config.js';
import { FLAGS, helpText, parseFlags } from '../../src/config/flags.js';
import { CLUSTER_FLAGS } from '../../src/config/flags/cluster.js';
import { LISTEN_FLAGS } from '../../src/config/flags/listen.js';
import { NGINX_FLAGS } from '../../src/config/flags/nginx.js';
import { STATUS_FLAGS } from '../../src/config/flags/status.js';
import { TENANCY_FLAGS } from '../../src/config/flags/tenancy.js';
import { ConfigError } from '../../src/errors.js';

test('defaults follow ingress-nginx', () => {
  const c = parseFlags(['--manifests', '/m'], {});
  assert.equal(c.httpPort, 80);
  assert.equal(c.httpsPort, 443);
  assert.equal(c.healthzPort, 10254);
  assert.equal(c.statusPort, 10246);
  assert.equal(c.defaultServerPort, undefined, 'the built-in default server is opened only on request');
  assert.equal(parseFlags(['--manifests', '/m', '--default-server-port=8181'], {}).defaultServerPort, 8181);
  assert.equal(c.annotationsPrefix, 'nginx.ingress.kubernetes.io');
  assert.equal(c.controllerClass, 'portico.dev/ingress-controller');
  assert.equal(c.ingressClass, 'portico');
  assert.equal(c.watchIngressWithoutClass, false);
  assert.equal(c.syncPeriodMs, 100);
  assert.equal(c.workerProcesses, 'auto');
  assert.ok(Object.isFrozen(c));
});

test('--flag=value, single-dash Go style and --bool=true/false are accepted', () => {
  const c = parseFlags(['--manifests=/m', '-http-port=8080', '--watch-ingress-without-class=true', '--default-backend-service=infra/def'], {});
  assert.equal(c.httpPort, 8080);
  assert.equal(c.watchIngressWithoutClass, true);
  assert.deepEqual(c.defaultBackendService, { namespace: 'infra', name: 'def' });
  assert.equal(parseFlags(['--manifests=/m', '--watch-ingress-without-class=false'], {}).watchIngressWithoutClass, false);
  assert.equal(parseFlags(['render', '--manifests', '/m'], {}).mode, 'render');
  assert.equal(parseFlags(['--manifests=/m', '--worker-processes=2'], {}).workerProcesses, 2);
});

test('bad values are refused naming the flag', () => {
  assert.throws(
    () => parseFlags(['--http-port', '99999'], {}),
    (e: unknown) => e instanceof ConfigError && /--http-port/.test(e.message),
  );
  assert.throws(() => parseFlags(['--sync-period-ms', '5'], {}), /--sync-period-ms: expected an integer >= 10/);
  assert.throws(() => parseFlags(['--default-backend-service', 'nope'], {}), /namespace\/name/);
  assert.throws(() => parseFlags(['--no-such-flag'], {}), ConfigError);
  assert.throws(() => parseFlags(['--worker-processes', '0'], {}), /--worker-processes: expected an integer >= 1/);
  assert.throws(() => parseFlags(['--manifests', '/m', '--work-dir', `/${'w'.repeat(90)}`], {}), /--work-dir: at most 80 bytes/);
  assert.throws(() => parseFlags(['--http-port', '8080', '--https-port', '8080'], {}), /must differ/);
});

test('each flag is declared once: no two entries share a Config field or a flag name, and --help lists every one', () => {
  const fields = [CLUSTER_FLAGS, LISTEN_FLAGS, TENANCY_FLAGS, NGINX_FLAGS, STATUS_FLAGS].flatMap((t) => Object.keys(t));
  assert.deepEqual(Object.keys(CONFIG_FLAGS), fields, 'a field declared in two tables would be overwritten by the later one');
  const names = Object.values(CONFIG_FLAGS).map((f) => f.name);
  assert.equal(new Set(names).size, names.length);
  assert.deepEqual(
    Object.keys(FLAGS).filter((n) => !helpText().includes(`  --${n} `)),
    [],
  );
});
