// Server blocks kept between renders (render/memo.ts): after any change the text equals a render without the memo,
// and the blocks nothing changed are reused (the memo does something, or this fails).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseFlags } from '../../src/config/flags.js';
import { AnnotationStage } from '../../src/pipeline/annotations.js';
import { buildAndRender, renderOptions } from '../../src/pipeline/build.js';
import { createLogger } from '../../src/log.js';
import type { Snapshot } from '../../src/model/input.js';
import { caseFlags, fixtureCases, loadSnapshot } from '../support/fixtures.js';

// The memo is of server blocks: rendered (dynamic routes are on by default and would leave few of them).
const config = parseFlags(['--manifests', '/nonexistent', '--work-dir', '/var/lib/portico', '--enable-dynamic-routes=false'], {});
const opts = renderOptions(config, undefined);
const fresh = (snap: Snapshot): string => buildAndRender(new AnnotationStage(config, createLogger('silent')), snap, config, opts).conf.text;

type Ann = Record<string, string>;
/** The snapshot with the annotations of Ingress `name` replaced (a new frozen object, as the store makes). */
function annotate(snap: Snapshot, name: string, annotations: Ann): Snapshot {
  return { ...snap, ingresses: snap.ingresses.map((i) => (i.metadata?.name === name ? { ...i, metadata: { ...i.metadata, annotations } } : i)) };
}

test('after each change the memo renders exactly what a fresh render does, and reuses the unchanged servers', () => {
  const P = 'nginx.ingress.kubernetes.io';
  const dir = fixtureCases('golden').find((d) => d.endsWith('canary-affinity'))!;
  const base = loadSnapshot(dir);
  const stage = new AnnotationStage(config, createLogger('silent'));
  // Changes each server block depends on through something other than its own Server: an upstream's balancing
  // (Lua hooks), TLS (redirect lines), a canary leaving, the ConfigMap-free defaults back again.
  const steps: [string, Snapshot][] = [
    ['as is', base],
    ['cart balanced by round robin, no hash (its hooks change)', annotate(base, 'cart', {})],
    ['the canary gone (shop loses its rewrite hook)', { ...base, ingresses: base.ingresses.filter((i) => i.metadata?.name !== 'shop-canary') }],
    ['shop forcing the HTTPS redirect', annotate(base, 'shop', { [`${P}/force-ssl-redirect`]: 'true', [`${P}/affinity`]: 'cookie' })],
    ['as is again', base],
  ];
  for (const [what, snap] of steps) {
    const got = buildAndRender(stage, snap, config, opts).conf.text;
    assert.equal(got, fresh(snap), what);
  }
  // The last step is the first again: the servers the previous step did not change were reused.
  assert.ok(stage.renderMemo.stats.reused >= 1, 'unchanged server blocks were reused');
});

test('an upstream whose balancing changes (its server unchanged) gets its block rendered again', () => {
  const dir = fixtureCases('golden').find((d) => d.endsWith('plain-http'))!;
  const base = loadSnapshot(dir);
  const stage = new AnnotationStage(config, createLogger('silent'));
  buildAndRender(stage, base, config, opts);
  const ewma = annotate(base, 'blog', { 'nginx.ingress.kubernetes.io/load-balance': 'ewma' });
  const got = buildAndRender(stage, ewma, config, opts).conf.text;
  assert.equal(got, fresh(ewma));
  assert.notEqual(got, fresh(base), 'ewma adds the log-phase hook to the blog locations');
  assert.ok(stage.renderMemo.stats.reused >= 1, 'the servers of other hosts were reused');
});

test('one memo through every golden cluster in turn gives each golden exactly', () => {
  // One stage (and memo) per set of case flags: the stage reads its flags (e.g. --allow-snippet-annotations) from its config.
  const stages = new Map<string, AnnotationStage>();
  for (const round of [1, 2]) {
    for (const dir of fixtureCases('golden')) {
      const c = parseFlags(['--manifests', dir, '--work-dir', '/var/lib/portico', '--enable-dynamic-routes=false', ...caseFlags(dir)], {});
      const key = JSON.stringify(caseFlags(dir));
      const stage = stages.get(key) ?? new AnnotationStage(c, createLogger('silent'));
      stages.set(key, stage);
      const o = { ...renderOptions(c, undefined), luaDir: '/usr/share/portico/lua' };
      const snap = loadSnapshot(dir);
      const withMemo = buildAndRender(stage, snap, c, o).conf.text;
      const without = buildAndRender(new AnnotationStage(c, createLogger('silent')), snap, c, o).conf.text;
      assert.equal(withMemo, without, `${dir} round ${round}`);
    }
  }
});

test('dynamic routes: after each change the kept route entries give exactly the table and nginx.conf of a fresh render', () => {
  const P = 'nginx.ingress.kubernetes.io';
  const dyn = parseFlags(['--manifests', '/nonexistent', '--work-dir', '/var/lib/portico', '--enable-dynamic-routes'], {});
  const o = renderOptions(dyn, undefined);
  const fresher = (snap: Snapshot): { text: string; routes: string | undefined } => {
    const c = buildAndRender(new AnnotationStage(dyn, createLogger('silent')), snap, dyn, o).conf;
    return { text: c.text, routes: c.routes };
  };
  const dir = fixtureCases('golden').find((d) => d.endsWith('canary-affinity'))!;
  const base = loadSnapshot(dir);
  const stage = new AnnotationStage(dyn, createLogger('silent'));
  // Each entry depends on something besides its server: an upstream's balancing (the rewrite flag), a canary leaving
  // (its route key and hooks), an annotation that moves the host into a profile, a TLS redirect.
  const steps: [string, Snapshot][] = [
    ['as is', base],
    ['cart balanced by round robin, no hash', annotate(base, 'cart', {})],
    ['the canary gone', { ...base, ingresses: base.ingresses.filter((i) => i.metadata?.name !== 'shop-canary') }],
    ['shop with a read timeout (a profile)', annotate(base, 'shop', { [`${P}/proxy-read-timeout`]: '30' })],
    ['shop forcing the HTTPS redirect', annotate(base, 'shop', { [`${P}/force-ssl-redirect`]: 'true', [`${P}/affinity`]: 'cookie' })],
    ['as is again', base],
  ];
  const seen = new Set<string>();
  for (const [what, snap] of steps) {
    const got = buildAndRender(stage, snap, dyn, o).conf;
    const want = fresher(snap);
    assert.ok(got.routes !== undefined, `${what}: a route table`);
    // the same table, its hosts in any order (one made from the last table lists new hosts last)
    assert.deepEqual(JSON.parse(got.routes), JSON.parse(want.routes ?? ''), what);
    assert.equal(got.text, want.text, what);
    const table = JSON.parse(got.routes) as { hosts: Record<string, unknown>; default: unknown };
    assert.deepEqual(
      new Map([...got.routeHosts!].map(([h, j]) => [h, JSON.parse(j) as unknown])),
      new Map([...Object.entries(table.hosts), ['_', table.default]]),
      `${what}: routeHosts is the table, host by host`,
    );
    seen.add(got.routes);
  }
  assert.ok(seen.size >= 3, 'the steps changed the table');
  assert.ok(stage.renderMemo.routes.stats.reused >= 1, 'unchanged hosts took their entries from the memo');
});
