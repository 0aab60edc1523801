// The routing conformance cases (routing-cases.ts) on rendered nginx locations: --enable-dynamic-routes off.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { routingSuites } from './routing-cases.js';

routingSuites('', [], async (p) => {
  const conf = await readFile(join(p.workDir, 'nginx.conf'), 'utf8');
  assert.match(conf, /server_name "row0\.table\.test";/, 'hosts are server blocks');
  assert.doesNotMatch(conf, /portico\.router/);
});
