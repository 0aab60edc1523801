// End to end, local mode, real nginx: on a host two namespaces share, a change built in part by --incremental-sync
// (docs/adr/0039, docs/adr/0043) answers what the whole build answers, and the host-ownership rules of
// docs/security.md hold after it: a newer Ingress of another namespace on the owner's host and paths never takes
// them over (only a longer prefix of its own is Kubernetes' rule), and under --strict-host-ownership not even that.
// Two controllers watch the same manifest folder, one building in part, one building the whole every time.
import { after, before, describe, test } from 'node:test';
import { startBackend, type Backend } from '../support/backends.js';
import { ingress, type PathSpec } from '../support/objects.js';
import { manifestFolder, serviceFor, type ManifestDir } from '../support/manifests.js';
import { startPortico, until, untilServed, type Running } from '../support/portico.js';

const HOST = 'shared.incremental.test';
const OWNER_CREATED = '2026-01-01T00:00:00Z';
const LATER = '2026-02-01T00:00:00Z';

/** The owner's Ingress (namespace team-a, the oldest claimant); `annotations` to change it. */
function owner(annotations?: Record<string, string>): unknown {
  const paths: PathSpec[] = [
    { path: '/', type: 'Prefix', service: 'a' },
    { path: '/docs', type: 'Prefix', service: 'a' },
  ];
  return ingress('site', { namespace: 'team-a', className: 'portico', host: HOST, created: OWNER_CREATED, paths, ...(annotations ? { annotations } : {}) });
}

/** The newer claimant (namespace team-b): the owner's paths exactly, and a longer prefix of its own. */
function newcomer(extra: PathSpec[] = [], annotations?: Record<string, string>): unknown {
  const paths: PathSpec[] = [{ path: '/', type: 'Prefix', service: 'b' }, { path: '/docs', type: 'Prefix', service: 'b' }, { path: '/b', type: 'Prefix', service: 'b' }, ...extra];
  return ingress('takeover', { namespace: 'team-b', className: 'portico', host: HOST, created: LATER, paths, ...(annotations ? { annotations } : {}) });
}

for (const strict of [false, true]) {
  describe(`a shared host after changes built in part${strict ? ' (--strict-host-ownership)' : ''}`, () => {
    let backends: Backend[] = [];
    let folder: ManifestDir;
    let part: Running;
    let whole: Running;
    const parts = (): number => part.output.filter((l) => l.includes('"msg":"build"') && l.includes('"part":')).length;
    /** Both controllers answer `cases`; the one building in part built at least one more part than `before`. */
    const bothServe = async (what: string, cases: readonly (readonly [string, string, string])[], before: number): Promise<void> => {
      await untilServed(part.http, `${what} (built in part)`, cases);
      await untilServed(whole.http, `${what} (built whole)`, cases);
      await until(`${what}: the build worker built it in part`, () => parts() > before);
    };
    // under strict ownership team-b's paths on team-a's host are refused, its own longer prefix too
    const b = strict ? 'a' : 'b';

    before(async () => {
      backends = await Promise.all(['a', 'b'].map((id) => startBackend(id)));
      folder = await manifestFolder();
      await folder.write('services.json', [...serviceFor('a', [backends[0]!], { namespace: 'team-a' }), ...serviceFor('b', [backends[1]!], { namespace: 'team-b' })]);
      await folder.write('a.json', [owner()]);
      const flags = ['--manifests', folder.dir, '--enable-dynamic-routes', ...(strict ? ['--strict-host-ownership'] : [])];
      part = await startPortico([...flags, '--incremental-sync', '--log-level', 'debug']);
      whole = await startPortico([...flags, '--incremental-sync=false']);
      await untilServed(part.http, 'the owner', [[HOST, '/x', 'a']]);
      await untilServed(whole.http, 'the owner', [[HOST, '/x', 'a']]);
    });

    after(async () => {
      await part?.stop();
      await whole?.stop();
      await Promise.all(backends.map((x) => x.close()));
      await folder?.remove();
    });

    test("a newer Ingress of another namespace on the owner's host and paths takes none of them", async () => {
      await folder.write('b.json', [newcomer()]);
      await bothServe(
        'the newcomer',
        [
          [HOST, '/b/1', b],
          [HOST, '/', 'a'],
          [HOST, '/x', 'a'],
          [HOST, '/docs/1', 'a'],
        ],
        0,
      );
    });

    test("the newcomer changed (an annotation, one more path): still none of the owner's paths", async () => {
      const before = parts();
      await folder.write('b.json', [newcomer([{ path: '/docs/b', type: 'Prefix', service: 'b' }], { 'nginx.ingress.kubernetes.io/ssl-redirect': 'false' })]);
      await bothServe(
        'the changed newcomer',
        [
          [HOST, '/docs/b/1', b],
          [HOST, '/b/1', b],
          [HOST, '/x', 'a'],
          [HOST, '/docs/1', 'a'],
        ],
        before,
      );
    });

    test('the owner changed: it keeps its paths', async () => {
      const before = parts();
      await folder.write('a.json', [owner({ 'nginx.ingress.kubernetes.io/ssl-redirect': 'false' })]);
      await bothServe(
        'the changed owner',
        [
          [HOST, '/x', 'a'],
          [HOST, '/docs/1', 'a'],
          [HOST, '/b/1', b],
        ],
        before,
      );
    });

    test('the owner removed: the next oldest claimant takes the host; the owner back: it takes it back', async () => {
      let before = parts();
      await folder.write('a.json', []);
      await bothServe(
        'the owner removed',
        [
          [HOST, '/x', 'b'],
          [HOST, '/docs/1', 'b'],
          [HOST, '/b/1', 'b'],
        ],
        before,
      );
      before = parts();
      await folder.write('a.json', [owner()]);
      await bothServe(
        'the owner back',
        [
          [HOST, '/x', 'a'],
          [HOST, '/docs/1', 'a'],
          [HOST, '/b/1', b],
        ],
        before,
      );
    });
  });
}
