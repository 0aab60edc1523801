// The routing conformance cases (routing-cases.ts) through the Lua route table: --enable-dynamic-routes on
// (docs/adr/0014). Same cases, same answers as routing.test.ts; here no host of the table has a server block.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { routingSuites } from './routing-cases.js';

routingSuites(' (dynamic routes)', ['--enable-dynamic-routes'], async (p) => {
  const conf = await readFile(join(p.workDir, 'nginx.conf'), 'utf8');
  assert.doesNotMatch(conf, /server_name "row0\.table\.test";/, 'no server block for a dynamic host');
  assert.doesNotMatch(conf, /server_name "foo\.test";/);
  assert.match(conf, /require\("portico\.router"\)\.route\(\)/, 'the catch-all routes through Lua');
});
