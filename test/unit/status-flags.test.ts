// Flags of leader election, status and the webhook: ingress-nginx's names, defaults, Go forms and clear errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseFlags } from '../../src/config/flags.js';

test('defaults: status on, cleared on shutdown, Lease portico-leader for 30s, webhook off', () => {
  const c = parseFlags(['--manifests', '/m'], {});
  assert.equal(c.electionId, 'portico-leader');
  assert.equal(c.electionTtlMs, 30_000);
  assert.equal(c.updateStatus, true);
  assert.equal(c.updateStatusOnShutdown, true);
  assert.equal(c.reportNodeInternalIp, false);
  assert.equal(c.publishService, undefined);
  assert.deepEqual(c.publishStatusAddress, []);
  assert.equal(c.validatingWebhook, undefined);
  assert.equal(c.podName, undefined);
});

test('Go forms turn default-true flags off; POD_NAME/POD_NAMESPACE come from the environment', () => {
  const c = parseFlags(
    [
      '--manifests=/m',
      '--update-status=false',
      '-update-status-on-shutdown=false',
      '--report-node-internal-ip-address',
      '--election-ttl=1500ms',
      '--election-id=my-lock',
      '--publish-service=ingress/portico',
      '--publish-status-address=10.0.0.1, lb.example.com',
      '--validating-webhook=:8443',
      '--validating-webhook-certificate=/c.pem',
      '--validating-webhook-key=/k.pem',
    ],
    { POD_NAME: 'portico-abc', POD_NAMESPACE: 'ingress' },
  );
  assert.equal(c.updateStatus, false);
  assert.equal(c.updateStatusOnShutdown, false);
  assert.equal(c.reportNodeInternalIp, true);
  assert.equal(c.electionTtlMs, 1500);
  assert.equal(c.electionId, 'my-lock');
  assert.deepEqual(c.publishService, { namespace: 'ingress', name: 'portico' });
  assert.deepEqual(c.publishStatusAddress, ['10.0.0.1', 'lb.example.com']);
  assert.deepEqual(c.validatingWebhook, { host: '', port: 8443 });
  assert.equal(c.podName, 'portico-abc');
  assert.equal(c.podNamespace, 'ingress');
  assert.equal(parseFlags(['--manifests=/m', '--update-status=true'], {}).updateStatus, true);
  assert.deepEqual(parseFlags(['--manifests=/m', '--validating-webhook=[::1]:9443', '--validating-webhook-certificate=/c', '--validating-webhook-key=/k'], {}).validatingWebhook, {
    host: '::1',
    port: 9443,
  });
});

test('bad values are refused naming the flag', () => {
  assert.throws(() => parseFlags(['--election-ttl', '30'], {}), /--election-ttl: expected a duration/);
  assert.throws(() => parseFlags(['--election-ttl', '10ms'], {}), /at least 1000 ms/);
  assert.throws(() => parseFlags(['--election-id', 'Bad_Id'], {}), /--election-id/);
  assert.throws(() => parseFlags(['--publish-status-address', '1.2.3.4,a b'], {}), /--publish-status-address: "a b"/);
  assert.throws(() => parseFlags(['--validating-webhook', '8443'], {}), /\[host\]:port/);
  assert.throws(() => parseFlags(['--validating-webhook', ':8443'], {}), /needs --validating-webhook-certificate/);
});
