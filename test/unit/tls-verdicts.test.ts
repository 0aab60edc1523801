// A tls.crt/tls.key pair is judged once by content: Secrets that hold the same pair, or a new object of the same
// Secret, take the kept verdict, and every answer still names its own Secret.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readTlsSecret } from '../../src/model/tls-secrets.js';
import { pairVerdict } from '../../src/model/tls-verdicts.js';
import { makeCert } from '../support/certs.js';
import { tlsSecret } from '../support/tls-manifests.js';

const dir = mkdtempSync(join(tmpdir(), 'portico-tls-verdicts-'));
after(() => {
  rmSync(dir, { recursive: true, force: true });
});
const a = makeCert(dir, 'a.verdict.test');
const b = makeCert(dir, 'b.verdict.test');
const ref = (namespace: string, name: string): { kind: 'Secret'; namespace: string; name: string } => ({ kind: 'Secret', namespace, name });

describe('TLS pair verdicts', () => {
  it('the same pair in two namespaces: one judgement, each certificate named by its own Secret', () => {
    const first = readTlsSecret(tlsSecret('wild', a, 'team-1'), ref('team-1', 'wild'));
    let judged = 0;
    // the pair was judged above: asking again by content does not judge it again
    pairVerdict(a.cert, a.key, () => {
      judged += 1;
      return { ok: false, refusal: 'key-mismatch' };
    });
    assert.equal(judged, 0);
    const second = readTlsSecret(tlsSecret('wild', a, 'team-2'), ref('team-2', 'wild'));
    assert.ok(first.ok && second.ok);
    assert.equal(first.value.id, 'team-1/wild');
    assert.equal(second.value.id, 'team-2/wild');
    assert.deepEqual(second.value.secret, { kind: 'Secret', namespace: 'team-2', name: 'wild' });
    assert.equal(second.value.fingerprint, first.value.fingerprint);
    assert.equal(second.value.pem.reveal(), first.value.pem.reveal());
  });

  it('a kept refusal names the Secret that asks, and a different key is judged anew', () => {
    const mixed = { cert: a.cert, key: b.key };
    const one = readTlsSecret(tlsSecret('one', mixed, 'ns-a'), ref('ns-a', 'one'));
    const two = readTlsSecret(tlsSecret('two', mixed, 'ns-b'), ref('ns-b', 'two'));
    assert.deepEqual(one, { ok: false, reason: 'Secret ns-a/one: tls.key is not the private key of tls.crt' });
    assert.deepEqual(two, { ok: false, reason: 'Secret ns-b/two: tls.key is not the private key of tls.crt' });
    const right = readTlsSecret(tlsSecret('one', a, 'ns-a'), ref('ns-a', 'one'));
    assert.ok(right.ok, 'the matching key of the same certificate is accepted');
  });

  it('a key with a second PEM block or a broken certificate chain is refused as before', () => {
    const twoKeys = readTlsSecret(tlsSecret('k', { cert: a.cert, key: `${a.key}\n${a.key}` }, 'ns'), ref('ns', 'k'));
    assert.deepEqual(twoKeys, { ok: false, reason: 'Secret ns/k: tls.key must hold exactly one unencrypted PEM private key' });
    const broken = readTlsSecret(tlsSecret('c', { cert: `${a.cert}\n-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n`, key: a.key }, 'ns'), ref('ns', 'c'));
    assert.deepEqual(broken, { ok: false, reason: 'Secret ns/c: tls.crt must hold only PEM CERTIFICATE blocks, each a valid certificate' });
  });
});
