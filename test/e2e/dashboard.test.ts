// The dashboard in real Chromium (Debian's, driven by playwright-core): what a person sees, live, read-only, no secret.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { keyLines } from '../support/certs.js';
import { REPO, get, until } from '../support/portico.js';
import { startOpsSite, type OpsSite } from '../support/ops-site.js';

/** Where the screenshot is kept (test-output/ is git-ignored; CI keeps the folder of the run). */
const SHOTS = join(REPO, 'test-output');

describe('dashboard', () => {
  let site: OpsSite;
  let browser: Browser;
  let page: Page;
  const requests: string[] = [];

  before(async () => {
    site = await startOpsSite();
    // playwright gives Chromium a new empty profile (--user-data-dir) of its own and removes it on close
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    page.on('request', (r) => {
      requests.push(`${r.method()} ${r.url()}`);
    });
    await page.goto(`http://127.0.0.1:${site.portico.healthz}/dashboard`);
  });
  after(async () => {
    await browser?.close();
    assert.equal(await site?.stop(), 0);
  });

  /** The cells' visible text of a table's body rows. */
  const cellsOf = async (table: string): Promise<string[][]> => {
    const out: string[][] = [];
    for (const tr of await page.locator(`#${table} tbody tr`).all()) out.push((await tr.locator('td').allInnerTexts()).map((t) => t.trim()));
    return out;
  };

  test('routes, certificates, syncs and the skipped Ingress as a person reads them', async () => {
    await page.waitForSelector('#health.ok', { timeout: 10_000 });
    assert.equal(await page.textContent('#health'), 'healthy');
    const routes = await cellsOf('routes');
    const port = site.backend.port;
    assert.deepEqual(
      routes.find((r) => r[0] === 'api.test'),
      ['api.test', '= /v1', 'default/api', 'default/api:80', `127.0.0.1:${port} ready127.0.0.2 not ready (out)`],
    );
    assert.deepEqual(routes.find((r) => r[0] === 'shop.test' && r[1] === '= /down')?.[4], 'no endpoint (503)');
    const certs = await cellsOf('certs');
    const shop = certs.find((r) => r[0] === 'shop.test');
    assert.equal(shop?.[1], 'default/shop-tls');
    assert.match(shop?.[2] ?? '', /Portico Test CA/);
    assert.match(shop?.[3] ?? '', /^in (29|30) days$/);
    const syncs = await cellsOf('syncs');
    assert.equal(syncs.at(-1)?.[1], 'reload');
    assert.match(syncs.at(-1)?.[2] ?? '', /startup/);
    const skipped = await cellsOf('skipped');
    assert.deepEqual(
      skipped.map((r) => r[0]),
      ['Ingress default/bad'],
    );
    assert.match(skipped[0]?.[2] ?? '', /"everyone" is not an IP address or CIDR/);
  });

  test('live: request rate and error ratio per Ingress follow traffic without a reload of the page', async () => {
    const navigations = requests.filter((r) => r.endsWith('/dashboard')).length;
    const deadline = Date.now() + 8000;
    // traffic to api.test (200) and to shop.test/down over HTTPS would be 503s; HTTP answers 308 here (TLS redirect)
    while (Date.now() < deadline) {
      await get(site.portico.http, 'api.test', '/v1');
      const rows = await cellsOf('traffic');
      const api = rows.find((r) => r[0] === 'default/api');
      if (api && Number(api[1]) > 0 && Number(api[3]) >= 20) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const api = (await cellsOf('traffic')).find((r) => r[0] === 'default/api');
    assert.ok(api && Number(api[1]) > 0, `a request rate is shown: ${JSON.stringify(api)}`);
    assert.equal(api[2], '0.0 %', 'no 5xx');
    assert.equal(requests.filter((r) => r.endsWith('/dashboard')).length, navigations, 'the page refreshed its data by itself');
    await mkdir(SHOTS, { recursive: true });
    await page.screenshot({ path: join(SHOTS, 'dashboard.png'), fullPage: true });
  });

  test('read-only, offline and without secrets: no form or button, only same-origin GETs, no key in the page', async () => {
    assert.equal(await page.$$eval('form, button, input, textarea, select', (e) => e.length), 0);
    const origin = `http://127.0.0.1:${site.portico.healthz}/`;
    assert.deepEqual(
      requests.filter((r) => !r.startsWith(`GET ${origin}dashboard`)),
      [],
      'nothing else is fetched (no external asset)',
    );
    const html = await page.content();
    for (const line of keyLines(site.pem.key)) assert.ok(!html.includes(line));
    assert.ok(!/PRIVATE KEY|x-portico-token/i.test(html));
    for (const method of ['POST', 'PUT', 'DELETE']) {
      assert.equal((await fetch(`${origin}dashboard/state.json`, { method })).status, 405, `${method} is refused`);
    }
    await until('the page still refreshes', async () => (await page.textContent('#updated'))?.startsWith('updated') === true, 5000);
  });
});
