// The certificates payload by entry and its deltas (docs/adr/0056): what Lua is sent for a whole set and for a change.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CertificateEntriesMaker, certificatesDelta, REST_KEY } from '../../src/render/cert-entries.js';
import type { CertificatesPayload } from '../../src/render/tls.js';

const A = '-----BEGIN CERTIFICATE-----\nAAA\n-----END CERTIFICATE-----\n';
const B = '-----BEGIN CERTIFICATE-----\nBBB "quoted"\n-----END CERTIFICATE-----\n';
const C = '-----BEGIN CERTIFICATE-----\nCCC\n-----END CERTIFICATE-----\n';

const payload = (certificates: Record<string, string>, more: Partial<CertificatesPayload> = {}): CertificatesPayload => ({ certificates, default: C, ...more });

void describe('certificate entries', () => {
  void it('makes the same whole payload as the payload itself, with the optional fields only when present', () => {
    const maker = new CertificateEntriesMaker();
    for (const p of [payload({}), payload({ 'a.test': A, '*.b.test': B, 'c.test': A }), payload({ 'a.test': A }, { listener: B, plain: ['x.test'], deep: ['*.b.test'] })]) {
      const e = maker.of(p);
      assert.deepEqual(JSON.parse(e.whole()), JSON.parse(JSON.stringify(p)));
      assert.equal(e.entries.size, Object.keys(p.certificates).length + 1);
      assert.equal(e.entries.get('a.test') ?? JSON.stringify(A), JSON.stringify(A));
    }
  });

  void it('has one digest for the same payload, another when a PEM, a host or another field changes', () => {
    const maker = new CertificateEntriesMaker();
    const base = maker.of(payload({ 'a.test': A, 'c.test': B })).digest;
    assert.equal(new CertificateEntriesMaker().of(payload({ 'a.test': A, 'c.test': B })).digest, base);
    assert.equal(maker.of(payload({ 'a.test': A, 'c.test': B })).digest, base);
    const others = [
      payload({ 'a.test': A, 'c.test': C }),
      payload({ 'a.test': A }),
      payload({ 'a.test': A, 'c.test': B, 'd.test': B }),
      payload({ 'a.test': A, 'c.test': B }, { default: A }),
      payload({ 'a.test': A, 'c.test': B }, { listener: A, plain: [] }),
    ];
    const digests = others.map((p) => maker.of(p).digest);
    assert.equal(new Set([base, ...digests]).size, others.length + 1);
  });

  void it('sends as a delta only the hosts set or changed, the hosts gone, and the other fields when they changed', () => {
    const maker = new CertificateEntriesMaker();
    const held = maker.of(payload({ 'a.test': A, 'b.test': B, 'c.test': A })).entries;
    assert.equal(certificatesDelta(held, maker.of(payload({ 'a.test': A, 'b.test': B, 'c.test': A })).entries), undefined);
    const now = maker.of(payload({ 'a.test': A, 'b.test': C, 'd.test': B })).entries;
    const d = certificatesDelta(held, now);
    assert.ok(d);
    assert.deepEqual(JSON.parse(d.body), { set: { 'b.test': C, 'd.test': B }, remove: ['c.test'] });
    assert.deepEqual([...d.changed].sort(), ['b.test', 'd.test']);
    assert.deepEqual(d.removed, ['c.test']);
    const rest = certificatesDelta(now, maker.of(payload({ 'a.test': A, 'b.test': C, 'd.test': B }, { default: B, listener: A, plain: ['p.test'] })).entries);
    assert.ok(rest);
    assert.deepEqual(JSON.parse(rest.body), { set: {}, remove: [], rest: { default: B, listener: A, plain: ['p.test'] } });
    assert.deepEqual(rest.changed, [REST_KEY]);
  });
});
