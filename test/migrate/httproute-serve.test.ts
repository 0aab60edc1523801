// The HTTPRoutes `migrate-check --httproute` prints answer like the Ingresses they come from: the fixture's Ingresses
// served by one Portico (ingress-nginx's class, as after a takeover), the printed routes by another, the same
// requests sent to both through real nginx; status, backend, redirect Location, and the path and headers the
// backend saw are compared.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startBackend, type Backend, type Echo } from '../support/backends.js';
import { manifestDir, writeManifests } from '../support/manifests.js';
import { slice } from '../support/objects.js';
import { get, startPortico, type Running } from '../support/portico.js';
import { EXPECTED, portico } from './run.js';

const FIXTURE = join(EXPECTED, 'httproute');

describe('migrate-check --httproute: the routes serve as the Ingresses did', () => {
  let backends: Backend[] = [];
  const dirs: string[] = [];
  let ingresses: Running;
  let routes: Running;

  before(async () => {
    backends = await Promise.all(['web', 'checkout', 'api'].map((id) => startBackend(id)));
    const slices = backends.map((b) => slice(b.id, b.port, ['127.0.0.1'], { namespace: 'shop' }));
    const printed = await portico(['migrate-check', '--manifests', FIXTURE, '--httproute', 'all', '--json']);
    const report = JSON.parse(printed.stdout) as { ingresses: { httpRoutes: unknown[] }[] };
    const [withIngresses, withRoutes] = [await manifestDir(), await manifestDir()] as [string, string];
    dirs.push(withIngresses, withRoutes);
    await cp(FIXTURE, withIngresses, { recursive: true });
    // ssl-redirect is left behind (an HTTP→HTTPS redirect needs the Gateway's HTTPS listener): off on the Ingress
    // side too, so that plain HTTP requests compare; the printed routes are the same either way.
    const yaml = await readFile(join(FIXTURE, 'ingresses.yaml'), 'utf8');
    assert.ok(yaml.includes('ssl-redirect: "true"'));
    await writeFile(join(withIngresses, 'ingresses.yaml'), yaml.replace('ssl-redirect: "true"', 'ssl-redirect: "false"'));
    await writeManifests(withIngresses, 'slices.yaml', slices);
    await cp(join(FIXTURE, 'services.yaml'), join(withRoutes, 'services.yaml'));
    await writeManifests(withRoutes, 'routes.yaml', [...slices, ...report.ingresses.flatMap((i) => i.httpRoutes)]);
    ingresses = await startPortico(['--manifests', withIngresses, '--controller-class', 'k8s.io/ingress-nginx', '--ingress-class', 'nginx']);
    routes = await startPortico(['--manifests', withRoutes]);
  });
  after(async () => {
    assert.equal(await ingresses?.stop(), 0);
    assert.equal(await routes?.stop(), 0);
    await Promise.all(backends.map((b) => b.close()));
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  /** What a client and the backend see: status, backend, Location, and the backend's path, Host and X-Forwarded-Prefix. */
  const seen = async (p: Running, host: string, path: string, headers: Record<string, string> = {}): Promise<string> => {
    const r = await get(p.http, host, path, { headers });
    const echo = r.status === 200 && r.headers['x-backend'] !== undefined ? (JSON.parse(r.body) as Echo) : undefined;
    return [r.status, r.headers['x-backend'] ?? '-', r.headers.location ?? '-', echo?.url ?? '-', echo?.headers.host ?? '-', echo?.headers['x-forwarded-prefix'] ?? '-'].join(' ');
  };

  test('paths, named ports, app-root, redirects, header canaries, rewrites and the Host sent upstream', async () => {
    const requests: [string, string, Record<string, string>?][] = [
      ['store.example.com', '/checkout'],
      ['store.example.com', '/checkout/more'],
      ['store.example.com', '/'],
      ['store.example.com', '/home'],
      ['shop.store.example.com', '/static/app.js'],
      ['shop.store.example.com', '/other'],
      ['old.example.com', '/anything'], // without a query: the route keeps it, ingress-nginx does not (a noted difference)
      ['beta.example.com', '/', { 'x-beta': 'yes' }],
      ['api.example.com', '/api/users'],
      ['gone.example.com', '/x'],
    ];
    const both = await Promise.all(requests.map(async ([h, path, hd]) => [await seen(ingresses, h, path, hd), await seen(routes, h, path, hd)]));
    // Answers may differ only where the conversion says so ("differs:"); none of these requests is such a case.
    assert.deepEqual(
      both.map(([, fromRoutes]) => fromRoutes),
      both.map(([fromIngress]) => fromIngress),
    );
    // And they are the answers the Ingresses ask for (not two identical 404s).
    assert.deepEqual(
      both.map(([i]) => i?.split(' ').slice(0, 2).join(' ')),
      [
        // shop.store.example.com/other: no path of its host; the api Ingress's spec.defaultBackend (web) takes it
        '200 checkout',
        '200 web',
        '302 -',
        '200 web',
        '200 web',
        '200 web',
        '302 -',
        '200 api',
        '200 api',
        '308 -',
      ],
    );
  });

  test('CORS: the preflight and a request from an allowed origin get the same Access-Control headers; another origin gets none', async () => {
    /** Status and the Access-Control headers, with list values as sets (the two may order or space them differently). */
    const cors = async (p: Running, method: string, origin: string, extra: Record<string, string> = {}): Promise<Record<string, unknown>> => {
      const r = await get(p.http, 'cors.example.com', '/things', { method, headers: { origin, ...extra } });
      const out: Record<string, unknown> = { status: r.status, backend: r.headers['x-backend'] ?? '-' };
      for (const [k, v] of Object.entries(r.headers)) {
        if (!k.startsWith('access-control-')) continue;
        out[k] =
          k.endsWith('-methods') || k.endsWith('-headers')
            ? String(v)
                .split(/\s*,\s*/)
                .map((x) => x.toLowerCase())
                .sort()
            : v;
      }
      return out;
    };
    const preflight = { 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' };
    const cases: [string, string, Record<string, string>?][] = [
      ['OPTIONS', 'https://app.example.com', preflight],
      ['GET', 'https://app.example.com'],
      ['GET', 'https://evil.example.com'],
    ];
    const fromIngress = await Promise.all(cases.map(([m, o, h]) => cors(ingresses, m, o, h)));
    const fromRoutes = await Promise.all(cases.map(([m, o, h]) => cors(routes, m, o, h)));
    // The preflight is answered without the backend, with the annotation's origin, methods and max age.
    assert.deepEqual(
      [
        fromIngress[0]?.['status'],
        fromIngress[0]?.['backend'],
        fromIngress[0]?.['access-control-allow-origin'],
        fromIngress[0]?.['access-control-allow-methods'],
        fromIngress[0]?.['access-control-max-age'],
      ],
      [204, '-', 'https://app.example.com', ['get', 'post'], '600'],
    );
    assert.equal(fromIngress[2]?.['access-control-allow-origin'], undefined, 'an origin not allowed gets no CORS headers');
    assert.deepEqual(fromRoutes, fromIngress);
  });
});
