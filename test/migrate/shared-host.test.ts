// migrate-check on the shared-host rules (ADR 0017), through the real command: a canary of another namespace than its main path
// is skipped with the flag that would serve it; a snippet while allow-snippet-annotations is off is 'different'.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { backendObjects, manifestFolder, type ManifestDir } from '../support/manifests.js';
import { ingress, ingressClass } from '../support/objects.js';
import { portico } from './run.js';

const P = 'nginx.ingress.kubernetes.io';
let dir: ManifestDir;

interface Report {
  ingresses: { namespace: string; name: string; verdict: string; reasons: string[]; annotations: { key: string; verdict: string; detail: string }[] }[];
}

before(async () => {
  dir = await manifestFolder();
  await dir.write('objects.json', [
    ingressClass('nginx', 'k8s.io/ingress-nginx'),
    ...backendObjects('web', 18081, 'shop'),
    ...backendObjects('web-next', 18082, 'shop'),
    ...backendObjects('team', 18083, 'team'),
    ingress('web', {
      namespace: 'shop',
      className: 'nginx',
      created: '2024-01-01T00:00:00Z',
      host: 'shop.test',
      paths: [
        { path: '/', type: 'Prefix', service: 'web' },
        { path: '/cart', type: 'Prefix', service: 'web' },
      ],
    }),
    ingress('web-canary', {
      namespace: 'shop',
      className: 'nginx',
      created: '2024-01-02T00:00:00Z',
      host: 'shop.test',
      annotations: { [`${P}/canary`]: 'true', [`${P}/canary-weight`]: '10' },
      paths: [{ path: '/', type: 'Prefix', service: 'web-next' }],
    }),
    ingress('hijack', {
      namespace: 'team',
      className: 'nginx',
      created: '2024-01-03T00:00:00Z',
      host: 'shop.test',
      annotations: { [`${P}/canary`]: 'true', [`${P}/canary-weight`]: '100' },
      paths: [{ path: '/cart', type: 'Prefix', service: 'team' }],
    }),
    ingress('headers', {
      namespace: 'team',
      className: 'nginx',
      created: '2024-01-04T00:00:00Z',
      host: 'team.test',
      annotations: { [`${P}/configuration-snippet`]: 'add_header X-A b;' },
      paths: [{ path: '/', type: 'Prefix', service: 'team' }],
    }),
  ]);
});
after(async () => {
  await dir.remove();
});

test('a cross-namespace canary is reported skipped with --allow-cross-namespace-canaries; a same-namespace one is served', async () => {
  const r = await portico(['migrate-check', '--manifests', dir.dir, '--controller-class', 'k8s.io/ingress-nginx', '--ingress-class', 'nginx', '--json']);
  const report = JSON.parse(r.stdout) as Report;
  const by = new Map(report.ingresses.map((i) => [`${i.namespace}/${i.name}`, i]));
  assert.equal(by.get('shop/web-canary')?.verdict, 'served', JSON.stringify(by.get('shop/web-canary')));
  assert.equal(by.get('team/hijack')?.verdict, 'skipped');
  assert.match(by.get('team/hijack')?.reasons.join('\n') ?? '', /served by Ingress shop\/web of another namespace.*--allow-cross-namespace-canaries/);
  const snippet = by.get('team/headers');
  assert.equal(snippet?.verdict, 'served-differently');
  assert.deepEqual(
    snippet?.annotations.map((a) => [a.key, a.verdict]),
    [[`${P}/configuration-snippet`, 'different']],
  );
  assert.match(snippet?.annotations[0]?.detail ?? '', /allow-snippet-annotations is true/);
  assert.equal(r.code, 1, 'a skipped Ingress: not everything maps');

  const allowed = await portico(['migrate-check', '--manifests', dir.dir, '--controller-class', 'k8s.io/ingress-nginx', '--ingress-class', 'nginx', '--allow-cross-namespace-canaries', '--json']);
  const again = JSON.parse(allowed.stdout) as Report;
  assert.equal(again.ingresses.find((i) => i.name === 'hijack')?.verdict, 'served', JSON.stringify(again.ingresses.find((i) => i.name === 'hijack')));
});
