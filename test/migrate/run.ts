// Runs the real `portico` command for the migrate tests, and prepares copies of the fixture folder.
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO } from '../support/portico.js';

/** The folder migrate-check reads; the expected table and JSON sit beside it. */
export const FIXTURE = join(REPO, 'test/fixtures/migrate/cluster');
export const EXPECTED = join(REPO, 'test/fixtures/migrate');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** `portico ARGS` to completion (at most 60 s). */
export function portico(args: readonly string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [join(REPO, 'bin/portico.js'), ...args], { timeout: 60_000, maxBuffer: 8 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err && typeof err.code === 'number' ? err.code : err ? -1 : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** A temporary copy of the fixture folder, plus EndpointSlices sending every Service to 127.0.0.1:port of its name. */
export async function fixtureCopy(ports: ReadonlyMap<string, number> = new Map()): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'portico-migrate-'));
  await cp(FIXTURE, dir, { recursive: true });
  const services = await readFile(join(FIXTURE, 'services.yaml'), 'utf8');
  const slices = [...services.matchAll(/name: ([a-z-]+), namespace: ([a-z-]+) \}/g)].flatMap(([, name, ns]) => {
    const port = ports.get(name ?? '');
    return port === undefined
      ? []
      : [
          [
            'apiVersion: discovery.k8s.io/v1',
            'kind: EndpointSlice',
            `metadata: { name: ${name ?? ''}-1, namespace: ${ns ?? ''}, labels: { kubernetes.io/service-name: ${name ?? ''} } }`,
            'addressType: IPv4',
            `ports: [{ name: http, port: ${port}, protocol: TCP }]`,
            'endpoints: [{ addresses: ["127.0.0.1"], conditions: { ready: true } }]',
          ].join('\n'),
        ];
  });
  await writeFile(join(dir, 'endpoints.yaml'), slices.join('\n---\n'));
  return dir;
}

/** Ingress namespace/name → verdict, from migrate-check's JSON. */
export function verdicts(json: string): Map<string, string> {
  const r = JSON.parse(json) as { ingresses: { namespace: string; name: string; verdict: string }[] };
  return new Map(r.ingresses.map((i) => [`${i.namespace}/${i.name}`, i.verdict]));
}
