// What the renderer hands the nginx process besides the text: the worker_shutdown_timeout a graceful stop waits for,
// as the ConfigMap's worker-shutdown-timeout sets it (nginx/process.ts no longer reads it back out of nginx.conf).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseFlags } from '../../src/config/flags.js';
import { AnnotationStage } from '../../src/pipeline/annotations.js';
import { buildAndRender, renderOptions } from '../../src/pipeline/build.js';
import { createLogger } from '../../src/log.js';
import { EMPTY_SNAPSHOT, type Snapshot } from '../../src/model/input.js';
import { fixtureCases, loadSnapshot } from '../support/fixtures.js';
import { locationHead } from '../../src/render/server-block.js';

const config = parseFlags(['--manifests', '/nonexistent', '--work-dir', '/var/lib/portico', '--configmap', 'ingress/portico'], {});
const opts = renderOptions(config, undefined);
const render = (snap: Snapshot): { text: string; shutdownTimeoutSeconds: number } => buildAndRender(new AnnotationStage(config, createLogger('silent')), snap, config, opts).conf;

test('the rendered configuration carries worker-shutdown-timeout (default 240 s) beside the line nginx reads', () => {
  const byDefault = render(EMPTY_SNAPSHOT);
  assert.equal(byDefault.shutdownTimeoutSeconds, 240);
  assert.match(byDefault.text, /^worker_shutdown_timeout 240s;$/m);
  const configMap = { apiVersion: 'v1' as const, kind: 'ConfigMap' as const, metadata: { name: 'portico', namespace: 'ingress' }, data: { 'worker-shutdown-timeout': '15s' } };
  const set = render({ ...EMPTY_SNAPSHOT, configMaps: [configMap] });
  assert.equal(set.shutdownTimeoutSeconds, 15);
  assert.match(set.text, /^worker_shutdown_timeout 15s;$/m);
});

test('the renderer maps every server block it wrote to its lines, fresh and through the render memo', () => {
  const rendered = parseFlags(['--manifests', '/nonexistent', '--work-dir', '/var/lib/portico', '--enable-dynamic-routes=false'], {});
  const ropts = renderOptions(rendered, undefined);
  const stage = new AnnotationStage(rendered, createLogger('silent'));
  for (const dir of fixtureCases('golden')) {
    const snap = loadSnapshot(dir);
    for (const { conf, model } of [buildAndRender(new AnnotationStage(rendered, createLogger('silent')), snap, rendered, ropts, true), buildAndRender(stage, snap, rendered, ropts)]) {
      const lines = conf.text.split('\n');
      assert.ok(conf.serverLines.length > 1, dir);
      for (const b of conf.serverLines) {
        assert.equal(lines[b.first - 1], '    server {', `${dir} ${b.host}`);
        assert.equal(lines[b.last - 1], '    }', `${dir} ${b.host}`);
        assert.ok((lines[b.first] ?? '').startsWith('        server_name '), `${dir} ${b.host}`);
        // each location's lines: its head (as the renderer writes it) inside, a closing brace last
        const server = model.servers.find((s) => s.host === b.host);
        assert.equal(b.locations.length, server?.locations.length, `${dir} ${b.host}`);
        b.locations.forEach(([first, last], i) => {
          const l = server?.locations[i];
          assert.ok(l && lines.slice(first - 1, last).includes(locationHead(l)), `${dir} ${b.host} location ${i}`);
          assert.match(lines[last - 1] ?? '', /^ {8}\}$/, `${dir} ${b.host} location ${i}`);
        });
      }
    }
  }
});
