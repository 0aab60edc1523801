// Model and renderer fixtures: each case's input.yaml against its expected model.json / nginx.conf, whole.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { selectIngresses } from '../../src/annotations/select.js';
import { buildModel } from '../../src/model/build.js';
import { classSelector } from '../../src/model/classes.js';
import type { ModelOptions } from '../../src/model/input.js';
import type { Model } from '../../src/model/types.js';
import { renderNginxConf, type RenderOptions } from '../../src/render/nginx-conf.js';
import { backendsPayload } from '../../src/render/lua-payload.js';
import { expected, fixtureCases, loadSnapshot } from '../support/fixtures.js';

export const FIXTURE_MODEL_OPTIONS: ModelOptions = {
  controllerClass: 'portico.dev/ingress-controller',
  ingressClass: 'portico',
  watchIngressWithoutClass: false,
  defaultBackendService: undefined,
  loadBalance: 'round_robin',
};

export const FIXTURE_RENDER_OPTIONS: RenderOptions = {
  workDir: '/var/lib/portico',
  luaDir: '/usr/share/portico/lua',
  httpPort: 80,
  httpsPort: 443,
  statusPort: 10246,
  defaultServerPort: 8181,
  listenAddress: '',
  user: undefined,
  workerProcesses: 'auto',
};

/**
 * A case with an options.json (model options over the fixture ones, e.g. `{"strictHostOwnership": true}`) goes
 * through the annotation stage first (prefix nginx.ingress.kubernetes.io), whose problems come first.
 */
function annotatedModel(dir: string): Model {
  const file = join(dir, 'options.json');
  if (!existsSync(file)) return buildModel(loadSnapshot(dir), FIXTURE_MODEL_OPTIONS);
  const opts: ModelOptions = { ...FIXTURE_MODEL_OPTIONS, ...(JSON.parse(readFileSync(file, 'utf8')) as Partial<ModelOptions>) };
  const snap = loadSnapshot(dir);
  const sel = selectIngresses(snap, new Map(), { prefix: 'nginx.ingress.kubernetes.io', riskLevel: 'High', allowSnippets: false, strictPaths: true, ours: classSelector(snap.ingressClasses, opts) });
  const built = buildModel(sel.snapshot, opts, sel.input);
  return { ...built, problems: [...sel.problems, ...built.problems] };
}

for (const dir of fixtureCases('model')) {
  test(`model fixture ${basename(dir)}`, () => {
    const model = annotatedModel(dir);
    const actual = `${JSON.stringify(model, null, 2)}\n`;
    assert.equal(actual, expected(dir, 'model.json', actual));
  });
}

for (const dir of fixtureCases('render')) {
  test(`render fixture ${basename(dir)}`, () => {
    const model = buildModel(loadSnapshot(dir), FIXTURE_MODEL_OPTIONS);
    const conf = renderNginxConf(model, FIXTURE_RENDER_OPTIONS).text;
    assert.equal(conf, expected(dir, 'nginx.conf', conf));
    const backends = `${JSON.stringify(backendsPayload(model), null, 2)}\n`;
    assert.equal(backends, expected(dir, 'backends.json', backends));
  });
}

// Annotated cases: the annotation stage first (prefix nginx.ingress.kubernetes.io), then the model, compared whole.
for (const dir of fixtureCases('annotated')) {
  test(`annotated fixture ${basename(dir)}`, () => {
    const snap = loadSnapshot(dir);
    const sel = selectIngresses(snap, new Map(), {
      prefix: 'nginx.ingress.kubernetes.io',
      riskLevel: 'High',
      allowSnippets: false,
      strictPaths: true,
      ours: classSelector(snap.ingressClasses, FIXTURE_MODEL_OPTIONS),
    });
    const model = buildModel(sel.snapshot, FIXTURE_MODEL_OPTIONS, sel.input);
    const actual = `${JSON.stringify({ problems: [...sel.problems, ...model.problems], upstreams: model.upstreams }, null, 2)}\n`;
    assert.equal(actual, expected(dir, 'model.json', actual));
  });
}
