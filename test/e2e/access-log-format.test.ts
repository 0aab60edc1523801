// The access log as ingress-nginx writes it, through real nginx: the default line has ingress-nginx's upstreaminfo
// fields in its order (so log parsers written for it keep working), a canary that takes a request is named in the
// alternative-upstream field, and a custom log-format-upstream may use ingress-nginx's $proxy_upstream_name and
// $proxy_alternative_upstream_name. By default the lines go to Portico's stdout, as ingress-nginx's do
// (`kubectl logs` shows the requests); access-log-path still sends them to a file.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBackend, type Backend } from '../support/backends.js';
import { configMap, manifestDir, serviceFor, writeManifests } from '../support/manifests.js';
import { ingress, ingressClass } from '../support/objects.js';
import { get, startPortico, until, type Running } from '../support/portico.js';

const P = 'nginx.ingress.kubernetes.io';
// ingress-nginx's default log-format-upstream, field for field: ... [$proxy_upstream_name] [$proxy_alternative_upstream_name]
// $upstream_addr $upstream_response_length $upstream_response_time $upstream_status $req_id
const UPSTREAMINFO = /^\S+ - \S+ \[[^\]]+\] "GET (\/\S*) HTTP\/1\.1" (\d{3}) \d+ "[^"]*" "[^"]*" \d+ [\d.]+ \[([^\]]*)\] \[([^\]]*)\] (\S+) (\d+|-) ([\d.]+|-) (\d{3}|-) ([0-9a-f]{32})$/;

/** The lines of `path` that are not Portico's own JSON log lines, once `want` holds (at most 10 s). */
async function logLines(path: string, want: (lines: string[]) => boolean): Promise<string[]> {
  const read = async (): Promise<string[]> => (await readFile(path, 'utf8').catch(() => '')).split('\n').filter((l) => l !== '' && !l.startsWith('{"level":'));
  // buffer=64k flush=1s: lines reach the file within about a second
  await until(`lines in ${path}`, async () => want(await read()), 10_000, 200).catch(() => undefined);
  return read();
}

describe('access log format', () => {
  let main: Backend;
  let canary: Backend;
  let dir = '';
  let logDir = '';
  let portico: Running;
  const objects = (data: Record<string, string>) => [
    ingressClass('portico'),
    ...serviceFor('main', [main]),
    ...serviceFor('canary', [canary]),
    configMap('portico', data, 'kube-system'),
    ingress('app', { className: 'portico', host: 'app.test', paths: [{ path: '/', type: 'Prefix', service: 'main' }] }),
    ingress('app-canary', {
      className: 'portico',
      host: 'app.test',
      paths: [{ path: '/', type: 'Prefix', service: 'canary' }],
      annotations: { [`${P}/canary`]: 'true', [`${P}/canary-by-header`]: 'X-Canary' },
    }),
  ];

  before(async () => {
    [main, canary] = await Promise.all([startBackend('main'), startBackend('canary')]);
    dir = await manifestDir();
    logDir = await mkdtemp(join(tmpdir(), 'portico-access-'));
    await writeManifests(dir, 'all.yaml', objects({}));
    // Portico's stdout a file, as a container runtime's FIFO or a terminal is: nginx opens /dev/stdout on it.
    portico = await startPortico(['--manifests', dir, '--configmap', 'kube-system/portico'], { stdoutFile: true });
    await until('served', async () => (await get(portico.http, 'app.test', '/')).status === 200);
  });

  after(async () => {
    assert.equal(await portico?.stop(), 0);
    await main?.close();
    await canary?.close();
    await rm(dir, { recursive: true, force: true });
    await rm(logDir, { recursive: true, force: true });
  });

  test("default: in Portico's stdout, ingress-nginx upstreaminfo fields in order; the canary named in the alternative field", async () => {
    assert.equal((await get(portico.http, 'app.test', '/to-main')).status, 200);
    assert.equal((await get(portico.http, 'app.test', '/to-canary', { headers: { 'x-canary': 'always' } })).status, 200);
    assert.equal(canary.seen.at(-1)?.url, '/to-canary');
    const lines = await logLines(portico.stdoutFile ?? '', (ls) => ls.some((l) => l.includes('/to-canary')));
    assert.ok(!existsSync(join(portico.workDir, 'logs', 'access.log')), 'no access log file in the work directory');
    const parsed = (path: string) => {
      const line = lines.find((l) => l.includes(`GET ${path} `));
      assert.ok(line, `a line for ${path}`);
      const m = UPSTREAMINFO.exec(line);
      assert.ok(m, `ingress-nginx's field order: ${line}`);
      return m;
    };
    const toMain = parsed('/to-main');
    assert.equal(toMain[2], '200');
    assert.equal(toMain[4], '', 'no alternative upstream when the main backend served');
    assert.equal(toMain[5], `127.0.0.1:${main.port}`);
    assert.ok(Number(toMain[6]) > 0, 'upstream response length');
    const toCanary = parsed('/to-canary');
    assert.notEqual(toCanary[4], '', 'the canary named');
    assert.equal(toCanary[4], toCanary[3]);
    assert.equal(toCanary[5], `127.0.0.1:${canary.port}`);
  });

  test('a custom log-format-upstream with $proxy_upstream_name and $proxy_alternative_upstream_name, to the access-log-path file', async () => {
    const file = join(logDir, 'access.log');
    await writeManifests(dir, 'all.yaml', objects({ 'log-format-upstream': 'custom $status up=$proxy_upstream_name alt=$proxy_alternative_upstream_name', 'access-log-path': file }));
    await until(
      'custom format',
      async () => {
        await get(portico.http, 'app.test', '/custom', { headers: { 'x-canary': 'always' } });
        return (await logLines(file, () => true)).some((l) => l.startsWith('custom 200 up=') && !l.endsWith('alt='));
      },
      20_000,
      500,
    );
    const lines = await logLines(file, () => true);
    const custom = lines.filter((l) => l.startsWith('custom 200 '));
    assert.ok(custom.length > 0);
    assert.match(custom.at(-1) ?? '', /^custom 200 up=\S+ alt=\S+$/);
    const stdout = (await readFile(portico.stdoutFile ?? '', 'utf8')).split('\n');
    assert.deepEqual(
      stdout.filter((l) => /log-format-upstream/.test(l) && /warn|refus/i.test(l)),
      [],
    );
    assert.deepEqual(
      stdout.filter((l) => l.startsWith('custom ')),
      [],
      'with access-log-path, no access line in stdout',
    );
    // Portico logged the reload after the first test's access lines: they are still whole in the file (stdout opened
    // as a shell's `>` opens it, without O_APPEND; Portico's own lines must not overwrite nginx's).
    assert.ok(
      stdout.some((l) => UPSTREAMINFO.test(l) && l.includes('GET /to-canary ')),
      "the stdout access lines outlive Portico's later lines",
    );
  });
});
