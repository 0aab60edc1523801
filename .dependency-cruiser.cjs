// The layer order of src/ as a checked rule (docs/architecture.md). A folder may import its own layer and the ones
// below it, never one above; no import cycle may cross folders. `npm run lint` runs this.
//
//   7  cli, migrate, docs        entry points: the command line, migrate-check, generated documents
//   6  controller                wiring: sources → store → sync loop → build worker → executor, status duties
//   5  adapters                  store, sources, kube, nginx, tls, metrics, webhook, apply, inspect, server, worker
//   4  pipeline                  the pure build of one sync: snapshot → annotations → model → render
//   3  render                    pure: model → nginx.conf text and Lua payloads
//   2  annotations, config, status   pure: annotation/ConfigMap parsing, flags and Config, what status should say
//   1  model                     pure: the Kubernetes rules, the model, snippet checks
//   0  errors.ts, hash.ts, log.ts, workfiles.ts   leaves
const LAYERS = [
  ['errors\\.ts', 'hash\\.ts', 'log\\.ts', 'workfiles\\.ts'],
  ['model'],
  ['annotations', 'config', 'status'],
  ['render'],
  ['pipeline'],
  ['store', 'sources', 'kube', 'nginx', 'tls', 'metrics', 'webhook', 'apply', 'inspect', 'server', 'worker'],
  ['controller'],
  ['cli', 'migrate', 'docs'],
];

const folder = (names) => `^src/(${names.join('|')})(/|$)`;

const upward = LAYERS.slice(0, -1).map((layer, i) => ({
  name: `layer-${i}-imports-upward`,
  comment: `src/{${layer.join(',')}} may import only its own layer and those below it (.dependency-cruiser.cjs)`,
  severity: 'error',
  from: { path: folder(layer) },
  to: { path: folder(LAYERS.slice(i + 1).flat()) },
}));

module.exports = {
  forbidden: [
    ...upward,
    {
      name: 'apply-imports-controller',
      comment: 'apply/ carries out a plan against nginx and Lua; it is handed what it needs and imports nothing from controller/',
      severity: 'error',
      from: { path: '^src/apply/' },
      to: { path: '^src/controller/' },
    },
    {
      name: 'cycle-across-folders',
      comment: 'an import cycle that leaves its folder ties two layers together',
      severity: 'error',
      from: { path: '^src/([^/]+)/' },
      to: { circular: true, viaSomeNot: '^src/$1/' },
    },
    {
      name: 'unlisted-folder',
      comment: 'every folder of src/ has a place in LAYERS',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^src/', pathNot: folder(LAYERS.flat()) },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^src/',
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
