// The dynamic split made from the last one (render/split-delta.ts, docs/adr/0051): a render whose model keeps the last
// model's servers gives exactly the nginx.conf and route table of a render that keeps nothing, and asks only the
// servers that changed for their entries. The models here are made by hand from one build's objects, as the
// incremental sync's splice makes them (the same server objects in place, a server more or less).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseFlags } from '../../src/config/flags.js';
import { createLogger } from '../../src/log.js';
import { EMPTY_SNAPSHOT, type Snapshot } from '../../src/model/input.js';
import type { Model } from '../../src/model/types.js';
import { AnnotationStage } from '../../src/pipeline/annotations.js';
import { buildAndRender, renderOptions } from '../../src/pipeline/build.js';
import { RenderMemo } from '../../src/render/memo.js';
import { renderNginxConf, type RenderOptions } from '../../src/render/nginx-conf.js';
import { ingress, ingressClass, service, slice } from '../support/objects.js';

const P = 'nginx.ingress.kubernetes.io';
const config = parseFlags(['--manifests', '/nonexistent', '--work-dir', '/var/lib/portico', '--enable-dynamic-routes'], {});
const opts = renderOptions(config, undefined);

const app = (name: string, host: string, annotations?: Record<string, string>, path = '/'): Snapshot => ({
  ...EMPTY_SNAPSHOT,
  ingresses: [ingress(name, { host, className: 'portico', paths: [{ path, type: 'Prefix', service: name }], ...(annotations ? { annotations } : {}) })],
  services: [service(name)],
  endpointSlices: [slice(name, 8080, ['10.0.0.1'])],
});

function modelOf(...parts: Snapshot[]): Model {
  const snap = parts.reduce((a, b) => ({ ...a, ingresses: [...a.ingresses, ...b.ingresses], services: [...a.services, ...b.services], endpointSlices: [...a.endpointSlices, ...b.endpointSlices] }), {
    ...EMPTY_SNAPSHOT,
    ingressClasses: [ingressClass('portico')],
  });
  return buildAndRender(new AnnotationStage(config, createLogger('silent')), snap, config, opts, true).model;
}

/** nginx.conf and the route table as pushed (its hosts in any order). */
function rendered(m: Model, o: RenderOptions): { text: string; routes: unknown } {
  const c = renderNginxConf(m, o);
  return { text: c.text, routes: JSON.parse(c.routes ?? 'null') as unknown };
}

/** Renders `before` then `after` with one memo; asserts `after` equals a fresh render and says how many entries were made. */
function step(before: Model, after: Model, what: string): number {
  const memo = new RenderMemo();
  renderNginxConf(before, { ...opts, memo });
  const made = memo.routes.split?.made ?? -1;
  const got = rendered(after, { ...opts, memo });
  assert.deepEqual(got, rendered(after, opts), what);
  assert.ok(memo.routes.split !== undefined, `${what}: a split is kept for the next render`);
  return memo.routes.split.made - made;
}

const whole = modelOf(
  app('wild', '*.w.test', { [`${P}/server-alias`]: 'alias.example' }),
  app('exact', 'a.w.test'),
  app('slow', 'slow.test', { [`${P}/proxy-read-timeout`]: '30' }),
  app('plain', 'plain.test'),
  app('other', 'z.test'),
);
const without = (host: string): Model => ({ ...whole, servers: whole.servers.filter((s) => s.host !== host) });

test('a host added under a wildcard whose server is rendered is rendered too, and only it is asked', () => {
  // the wildcard's alias keeps its server a block; an exact host under it must be one as well
  assert.equal(step(without('a.w.test'), whole, 'a.w.test added'), 1);
  const routes = JSON.parse(renderNginxConf(whole, opts).routes ?? '{}') as { hosts: Record<string, unknown> };
  assert.equal(routes.hosts['a.w.test'], undefined, 'a.w.test is not in the table');
  assert.match(renderNginxConf(whole, opts).text, /server_name "?a\.w\.test"?;/);
});

test('a routed host removed leaves the table, and a profile no host uses leaves nginx.conf', () => {
  assert.equal(step(whole, without('plain.test'), 'plain.test removed'), 0);
  const slow = without('slow.test');
  assert.equal(step(whole, slow, 'slow.test removed'), 0);
  assert.doesNotMatch(renderNginxConf(slow, opts).text, /proxy_read_timeout 30s/, 'the profile is gone with its only host');
  assert.equal(step(slow, whole, 'slow.test back'), 1);
});

test('a kept server whose upstream changed is asked again; the others are not', () => {
  const tuned: Model = { ...whole, upstreams: whole.upstreams.map((u) => (u.service.name === 'plain' ? { ...u, loadBalance: 'ewma' as const, tuned: true } : u)) };
  assert.equal(step(whole, tuned, 'plain balanced by ewma'), 1);
  assert.notDeepEqual(rendered(tuned, opts).routes, rendered(whole, opts).routes, 'the change shows in the table');
});
