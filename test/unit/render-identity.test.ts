// Parts kept by server object (render/identity-memo.ts, docs/adr/0043): a server that is the same object but whose
// upstream or TLS entry is a new, different object gets its block and route entry made again, and the render equals
// one that keeps nothing. The incremental sync never makes such a model (its splice keeps a server only with its
// namespace's upstreams and TLS entries), so these models are made by hand here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseFlags } from '../../src/config/flags.js';
import { AnnotationStage } from '../../src/pipeline/annotations.js';
import { buildAndRender, renderOptions } from '../../src/pipeline/build.js';
import { createLogger } from '../../src/log.js';
import type { Model } from '../../src/model/types.js';
import { RenderMemo } from '../../src/render/memo.js';
import { renderNginxConf, type RenderOptions } from '../../src/render/nginx-conf.js';
import { fixtureCases, loadSnapshot } from '../support/fixtures.js';

const modelOf = (dir: string, dynamic: boolean): { model: Model; opts: RenderOptions } => {
  const config = parseFlags(['--manifests', dir, '--work-dir', '/var/lib/portico', `--enable-dynamic-routes=${String(dynamic)}`], {});
  const opts = renderOptions(config, undefined);
  return { model: buildAndRender(new AnnotationStage(config, createLogger('silent')), loadSnapshot(dir), config, opts).model, opts };
};

const textOf = (m: Model, o: RenderOptions): { text: string; routes: string | undefined } => {
  const c = renderNginxConf(m, o);
  return { text: c.text, routes: c.routes };
};

for (const dynamic of [false, true]) {
  test(`${dynamic ? 'dynamic routes' : 'server blocks'}: the same server objects with a changed upstream or TLS entry render as a fresh render does`, () => {
    const { model, opts } = modelOf(
      fixtureCases('golden').find((d) => d.endsWith('tls-redirect'))!,
      dynamic,
    );
    const memo = new RenderMemo();
    assert.deepEqual(textOf(model, { ...opts, memo }), textOf(model, opts), 'the first render');
    const again = textOf(model, { ...opts, memo });
    assert.ok(memo.byServer.stats.same + memo.routes.byServer.stats.same > 0, 'the same objects were found by identity');
    assert.deepEqual(again, textOf(model, opts), 'the same model again');
    // every upstream balanced by ewma (a log hook in its locations), as new objects; the servers stay the same objects
    const ewma: Model = { ...model, upstreams: model.upstreams.map((u) => ({ ...u, loadBalance: 'ewma' as const, tuned: true })) };
    const changed = textOf(ewma, { ...opts, memo });
    assert.deepEqual(changed, textOf(ewma, opts), 'upstreams changed under the same servers');
    assert.notDeepEqual(changed, again, 'the change shows in the render');
    // every TLS host without TLS (no redirect, no HSTS), as new objects
    const plain: Model = { ...ewma, tls: { ...ewma.tls, servers: ewma.tls.servers.map((s) => ({ ...s, tls: false })) } };
    const untls = textOf(plain, { ...opts, memo });
    assert.deepEqual(untls, textOf(plain, opts), 'TLS entries changed under the same servers');
    assert.notDeepEqual(untls, changed, 'the change shows in the render');
  });
}
