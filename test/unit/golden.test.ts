// Whole-nginx.conf goldens: a handful of representative clusters (test/fixtures/golden/CASE/input.yaml, optional
// flags.json) through the annotation stage, the model and the renderer exactly as a sync runs them, compared whole
// with the Warnings they give. UPDATE_FIXTURES=1 rewrites nginx.conf and problems.txt for review; a difference fails
// with a line diff (expected → actual) rather than a two-screen string.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { basename } from 'node:path';
import { parseFlags } from '../../src/config/flags.js';
import { AnnotationStage } from '../../src/pipeline/annotations.js';
import { buildAndRender, renderOptions } from '../../src/pipeline/build.js';
import { createLogger } from '../../src/log.js';
import { caseFlags, expected, fixtureCases, loadSnapshot } from '../support/fixtures.js';
import { lineDiff } from '../support/line-diff.js';

/** What a case's files give, as a sync would render it (paths fixed so the golden is the same on every machine). */
function render(dir: string): { conf: string; problems: string } {
  // The goldens are of server blocks, so rendered: with the default dynamic routes most hosts would be a line of the
  // route table instead (its split and table: dynamic-routes.test.ts, route-table.test.ts). flags.json may still set it.
  const config = parseFlags(['--manifests', dir, '--work-dir', '/var/lib/portico', '--enable-dynamic-routes=false', ...caseFlags(dir)], {});
  const opts = { ...renderOptions(config, undefined), luaDir: '/usr/share/portico/lua' };
  const { model, conf } = buildAndRender(new AnnotationStage(config, createLogger('silent')), loadSnapshot(dir), config, opts);
  const problems = model.problems.map((p) => `${p.severity} ${p.object.kind} ${p.object.namespace}/${p.object.name} ${p.field}: ${p.reason}\n`).join('');
  return { conf: conf.text, problems };
}

function same(dir: string, file: string, actual: string): void {
  const want = expected(dir, file, actual);
  assert.ok(actual === want, `${basename(dir)}/${file} differs (UPDATE_FIXTURES=1 rewrites it; review the diff):\n${lineDiff(want, actual)}`);
}

const cases = fixtureCases('golden');

test('the golden clusters are the representative handful', () => {
  assert.deepEqual(
    cases.map((d) => basename(d)),
    ['auth-snippets', 'canary-affinity', 'default-backend-errors', 'plain-http', 'stream', 'tls-redirect'],
  );
});

for (const dir of cases) {
  test(`golden nginx.conf ${basename(dir)}`, () => {
    const first = render(dir);
    same(dir, 'nginx.conf', first.conf);
    same(dir, 'problems.txt', first.problems);
    // Rendering is a function of its input: the same cluster twice gives the same bytes.
    assert.equal(render(dir).conf, first.conf);
  });
}

test('a golden that differs fails with the changed lines and their context, not the whole file', () => {
  const want = ['http {', '    server {', '        listen 80;', '        server_name a;', '    }', '}', ''].join('\n');
  const got = want.replace('listen 80;', 'listen 8080;');
  assert.equal(
    lineDiff(want, got),
    ['--- expected', '+++ actual', '@@ expected line 1, actual line 1 @@', ' http {', '     server {', '-        listen 80;', '+        listen 8080;', '         server_name a;', '     }', ' }'].join(
      '\n',
    ),
  );
  assert.equal(lineDiff(want, want), '');
});
