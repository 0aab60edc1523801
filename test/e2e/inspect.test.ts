// `portico backends|config|certs|status` against a running local-mode instance: readable tables, --json, never a key.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { keyLines } from '../support/certs.js';
import { REPO, get } from '../support/portico.js';
import { startOpsSite, type OpsSite } from '../support/ops-site.js';

const run = promisify(execFile);

describe('inspector CLI', () => {
  let site: OpsSite;
  let url = '';
  const portico = async (...args: string[]): Promise<string> => {
    const { stdout } = await run(process.execPath, [join(REPO, 'bin/portico.js'), ...args, '--url', url], { timeout: 20_000 });
    for (const line of keyLines(site.pem.key)) assert.ok(!stdout.includes(line), 'no key line is ever printed');
    return stdout;
  };
  /** The table's rows (header first) as arrays of cells: columns are two or more spaces apart. */
  const rows = (text: string): string[][] =>
    text
      .trim()
      .split('\n')
      .map((l) => l.trim().split(/ {2,}/));

  before(async () => {
    // named, not left to the default: `config` shows the route table, whatever PORTICO_TEST_DYNAMIC_ROUTES says
    site = await startOpsSite(['--enable-dynamic-routes']);
    url = `http://127.0.0.1:${site.portico.healthz}`;
    for (let i = 0; i < 3; i++) await get(site.portico.http, 'shop.test', '/');
  });
  after(async () => {
    assert.equal(await site?.stop(), 0);
  });

  test('backends: hosts → paths → Ingress → Service → endpoints with their state', async () => {
    const t = rows(await portico('backends'));
    assert.deepEqual(t[0], ['HOST', 'PATH', 'INGRESS', 'SERVICE', 'ENDPOINTS']);
    const port = site.backend.port;
    assert.deepEqual(
      t.find((r) => r[0] === 'api.test'),
      ['api.test', '= /v1', 'default/api', 'default/api:80', `127.0.0.1:${port} ready, 127.0.0.2 not ready (out of rotation)`],
    );
    // a Prefix path is two nginx locations, `= /down` and `/down/`: both shown, as nginx matches them
    assert.deepEqual(
      t.filter((r) => r[0] === 'shop.test' && r[1]?.includes('/down')),
      [
        ['shop.test', '= /down', 'default/shop', 'default/gone:80', 'none (503)'],
        ['shop.test', '/down/', 'default/shop', 'default/gone:80', 'none (503)'],
      ],
    );
    assert.deepEqual(
      t.find((r) => r[0] === 'shop.test' && r[1] === '/'),
      ['shop.test', '/', 'default/shop', 'default/web:80', `127.0.0.1:${port} ready`],
    );
  });

  test('backends --json: the same routes (and TCP/UDP ports) for scripts', async () => {
    const { routes } = JSON.parse(await portico('backends', '--json')) as {
      routes: { host: string; paths: { path: string; endpoints: { address: string; state: string; inRotation: boolean }[] }[] }[];
    };
    const api = routes.find((r) => r.host === 'api.test')?.paths[0];
    assert.deepEqual(
      api?.endpoints.map((e) => [e.address, e.state, e.inRotation]),
      [
        ['127.0.0.1', 'ready', true],
        ['127.0.0.2', 'not ready', false],
      ],
    );
  });

  test('certs: host, Secret, issuer and days left', async () => {
    const t = rows(await portico('certs'));
    assert.deepEqual(t[0], ['HOST', 'SECRET', 'ISSUER', 'EXPIRES', 'DAYS LEFT']);
    const shop = t.find((r) => r[0] === 'shop.test');
    assert.equal(shop?.[1], 'default/shop-tls');
    assert.match(shop?.[2] ?? '', /Portico Test CA/);
    assert.ok(['29', '30'].includes(shop?.[4] ?? ''), `days left: ${shop?.[4]}`);
    const json = JSON.parse(await portico('certs', '--json')) as { host: string; daysLeft: number }[];
    assert.ok(json.some((c) => c.host === 'shop.test' && c.daysLeft >= 29));
  });

  test('status: health, the last syncs with plan and cause, and the current Warnings', async () => {
    const text = await portico('status');
    assert.match(text, /^health: healthy {3}nginx restarts: 0/);
    assert.match(text, /LAST SYNCS\nSTARTED +PLAN +MS +CAUSE\n\S+ +reload +\d+ +\S*startup/);
    assert.match(text, /WARNINGS \(\d+\)\nOBJECT +FIELD +SEVERITY +REASON\nIngress default\/bad +.*whitelist-source-range/);
    const json = JSON.parse(await portico('status', '--json')) as { healthy: boolean; syncs: { plan: string; causes: Record<string, number> }[]; warnings: { object: string }[] };
    assert.equal(json.healthy, true);
    assert.equal(json.syncs.at(-1)?.plan, 'reload');
    assert.ok('startup' in (json.syncs.at(-1)?.causes ?? {}));
    assert.ok(json.warnings.some((w) => w.object === 'Ingress default/bad'));
  });

  test('config: hosts and paths by Ingress and what serves them; --raw prints the nginx.conf served, then the route table', async () => {
    const t = rows(await portico('config'));
    assert.deepEqual(t[0], ['HOST', 'MATCH', 'PATH', 'INGRESS', 'BACKEND', 'SERVED BY']);
    assert.deepEqual(
      t.find((r) => r[0] === 'api.test'),
      ['api.test', 'exact', '/v1', 'default/api', 'default_api_80', 'route table'],
    );
    assert.deepEqual(
      t.find((r) => r[0] === 'legacy.test'),
      ['legacy.test', 'prefix', '/', 'default/legacy', 'default_web_80', 'server block'],
    );
    const raw = await portico('config', '--raw');
    assert.match(raw, /server_name "legacy\.test" "old\.legacy\.test";/, 'a rendered host: its server block');
    // a routed host has no server block: it is a row of the route table printed after nginx.conf, as comments
    assert.doesNotMatch(raw, /server_name "(api|shop)\.test"/);
    assert.match(raw, /^# Route table \(--enable-dynamic-routes, docs\/adr\/0014\): 2 hosts without a server block above\.$/m);
    assert.match(raw, /^# api\.test +exact +\/v1 +default\/api +default_api_80 +proxy$/m);
    assert.match(raw, /^# shop\.test +prefix +\/ +default\/shop +default_web_80 +308 to https on http, proxy$/m);
    assert.ok(
      raw
        .slice(raw.indexOf('# Route table'))
        .split('\n')
        .every((l) => l === '' || l.startsWith('#')),
      'after nginx.conf, comments only',
    );
    const json = JSON.parse((await get(site.portico.healthz, 'localhost', '/debug/routes')).body) as { hosts: Record<string, unknown> };
    assert.deepEqual(Object.keys(json.hosts).sort(), ['api.test', 'shop.test']);
  });

  test('an unreachable instance is a clear error and exit code 1', async () => {
    const err = await run(process.execPath, [join(REPO, 'bin/portico.js'), 'status', '--url', 'http://127.0.0.1:9'], { timeout: 20_000 }).then(
      () => undefined,
      (e: unknown) => e as { code: number; stderr: string },
    );
    assert.equal(err?.code, 1);
    assert.match(err?.stderr ?? '', /^portico status: cannot reach Portico at http:\/\/127\.0\.0\.1:9\/debug\/state/);
  });
});
