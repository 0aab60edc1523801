// The routing conformance cases (routing-cases.ts) with --enable-dynamic-routes and an annotation on every Ingress
// that renders a directive without changing an answer (proxy-read-timeout "60", nginx's default): every route is
// served through a profile, the router's ngx.exec to a shared named location (docs/adr/0014). Same cases, same answers.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { routingSuites } from './routing-cases.js';

routingSuites(
  ' (dynamic routes, profiles)',
  ['--enable-dynamic-routes'],
  async (p) => {
    const conf = await readFile(join(p.workDir, 'nginx.conf'), 'utf8');
    assert.doesNotMatch(conf, /server_name "row0\.table\.test";/, 'no server block for a dynamic host');
    assert.match(conf, /location @portico_profile_[0-9a-f]+ \{\n(.*\n)*?\s+proxy_read_timeout 60s;/, 'the annotation is in a profile');
  },
  { 'nginx.ingress.kubernetes.io/proxy-read-timeout': '60' },
);
