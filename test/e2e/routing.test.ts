// The routing conformance cases (routing-cases.ts) on rendered nginx locations: --enable-dynamic-routes off.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { routingSuites } from './routing-cases.js';

// Named, not left to the default (dynamic routes are on by default, docs/adr/0014): this half stays rendered.
routingSuites('', ['--enable-dynamic-routes=false'], async (p) => {
  const conf = await readFile(join(p.workDir, 'nginx.conf'), 'utf8');
  assert.match(conf, /server_name "row0\.table\.test";/, 'hosts are server blocks');
  assert.doesNotMatch(conf, /portico\.router/);
});
