// ingress-nginx e2e settings/configmap_change.go: ConfigMap changes are applied, each seen in what it does:
// whitelist-source-range refuses other clients, and error-log-level debug, which only a reload can apply (a new
// configuration hash, one more reload), lets nginx's [info] lines through to the log.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { metric, until, type Running } from '../../support/portico.js';
import { ing, startSuite, type Suite } from '../harness.js';

const HOST = 'configmap-change';

/** Opens a connection to `port` and closes it without a request: nginx logs that at [info]. */
function idleConnection(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const sock = connect(port, '127.0.0.1', () => {
      sock.end();
    });
    sock.setTimeout(5_000, () => sock.destroy(new Error('idle connection timeout')));
    sock.on('close', () => {
      resolve();
    });
    sock.on('error', reject);
  });
}

/** The running configuration's hash (ingress-nginx's "Configuration checksum"), from /metrics; it carries labels. */
async function configHash(p: Running): Promise<string> {
  const text = await (await fetch(`http://127.0.0.1:${p.healthz}/metrics`)).text();
  const value = /^nginx_ingress_controller_config_hash(?:\{[^}]*\})? (\S+)$/m.exec(text)?.[1];
  if (value === undefined) throw new Error('no metric nginx_ingress_controller_config_hash');
  return value;
}

void describe('settings/configmap_change.go', () => {
  let s: Suite;
  const infoLines = () => s.portico.output.filter((l) => l.includes('"msg":"nginx"') && l.includes('[info]') && l.includes('client closed connection')).length;

  before(async () => {
    s = await startSuite();
    await s.put('ingress.json', [ing(HOST, HOST)], async () => (await s.get(HOST, '/')).status === 200);
  });
  after(() => s.stop());

  test('should reload after an update in the configuration', async () => {
    // whitelist-source-range 1.1.1.1: this client (127.0.0.1) is no longer allowed. (ingress-nginx reloads for it;
    // Portico may push it to Lua's route table without one: what counts is the answer.)
    await s.config({ 'whitelist-source-range': '1.1.1.1' }, async () => (await s.get(HOST, '/')).status === 403);
    const hash = await configHash(s.portico);
    const reloads = await metric(s.portico, 'portico_reloads_total');
    // At the default level (notice) nginx keeps its [info] lines to itself.
    await idleConnection(s.portico.http);
    const quiet = infoLines();

    await s.config({ 'whitelist-source-range': '1.1.1.1', 'error-log-level': 'debug' });
    await until(
      'error-log-level debug applied by a reload',
      async () => {
        await idleConnection(s.portico.http);
        // The hash and the counter move once the reload is over (the old workers retired), a moment after the new
        // workers first answer.
        return infoLines() > quiet && (await configHash(s.portico)) !== hash && (await metric(s.portico, 'portico_reloads_total')) > reloads;
      },
      20_000,
    );
    assert.equal(quiet, 0, 'nginx logged [info] lines at error-log-level notice');
    assert.equal((await s.get(HOST, '/')).status, 403);
  });
});
