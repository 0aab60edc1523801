// ESLint flat config: strict TypeScript, a lint budget, and the purity boundary of the pure folders (docs/architecture.md).
import tseslint from 'typescript-eslint';

const impure = [
  'fs', 'node:fs', 'fs/promises', 'node:fs/promises', 'child_process', 'node:child_process',
  'net', 'node:net', 'http', 'node:http', 'https', 'node:https', 'dgram', 'node:dgram', 'tls', 'node:tls',
  'os', 'node:os', 'process', 'node:process', 'timers', 'node:timers', 'worker_threads', 'node:worker_threads',
];

export default tseslint.config(
  // static/: the dashboard's browser script (plain JS served as is; checked by the dashboard test in Chromium).
  { ignores: ['dist/**', 'node_modules/**', 'lua/**', 'njs/**', 'eslint.config.js', '.dependency-cruiser.cjs', 'bin/**', 'static/**'] },
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/explicit-function-return-type': ['error', { allowExpressions: true }],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      '@typescript-eslint/no-unnecessary-condition': 'off',
      complexity: ['error', 25],
      'max-params': ['error', 5],
      'max-lines': ['error', { max: 400, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/kube/**'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [{ name: '@kubernetes/client-node', message: 'Only src/kube/ talks to the Kubernetes API.' }],
      }],
    },
  },
  {
    files: ['src/model/**/*.ts', 'src/render/**/*.ts', 'src/annotations/**/*.ts', 'src/pipeline/**/*.ts', 'src/status/**/*.ts', 'src/apply/plan.ts', 'src/webhook/review.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [
          ...impure.map((name) => ({ name, message: 'model/, annotations/, render/, status/ and pipeline/ are pure: no I/O, env or clock.' })),
          { name: '@kubernetes/client-node', message: 'Only src/kube/ talks to the Kubernetes API.' },
        ],
        patterns: [{ group: ['**/nginx/**', '**/sources/**', '**/kube/**', '**/controller/**', '**/server/**'],
          message: 'The pure folders may not import I/O modules.' }],
      }],
      'no-restricted-globals': ['error',
        { name: 'process', message: 'No environment in pure code.' },
        { name: 'setTimeout', message: 'No clock in pure code.' },
        { name: 'setInterval', message: 'No clock in pure code.' },
        { name: 'fetch', message: 'No network in pure code.' },
        { name: 'performance', message: 'No clock in pure code.' }],
      'no-restricted-properties': ['error',
        { object: 'Date', property: 'now', message: 'No clock in pure code.' },
        { object: 'Math', property: 'random', message: 'Pure code is deterministic.' }],
      'no-restricted-syntax': ['error',
        { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: 'No clock in pure code.' }],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      // node:test's test() and describe() return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': ['error', { allowForKnownSafeCalls: [
        { from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite', 'before', 'after', 'beforeEach', 'afterEach'] }] }],
      '@typescript-eslint/no-base-to-string': 'off',
      '@typescript-eslint/require-await': 'off',
      'max-lines': 'off',
      '@typescript-eslint/explicit-function-return-type': 'off',
    },
  },
);
