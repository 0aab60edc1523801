// Least privilege, the pure parts: the workers' user, what makes a work dir searchable, who may read /debug, the flags.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseFlags } from '../../src/config/flags.js';
import { canTraverse, resolveWorkerUser, traverseFix } from '../../src/nginx/worker-user.js';
import { debugRefusal, isLoopbackPeer } from '../../src/server/http.js';

const PASSWD =
  'root:x:0:0:root:/root:/bin/bash\nwww-data:x:33:33:www-data:/var/www:/usr/sbin/nologin\n' +
  'nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\nnginx:x:101:101::/:/sbin/nologin\nodd:x:7:4242::/:/bin/false\n';
const GROUP = 'root:x:0:\nwww-data:x:33:\nnogroup:x:65534:\nnginx:x:101:\n';

test('worker user: www-data by default, nobody without it, what --worker-user names, refused when unknown', () => {
  const cases: [string | undefined, string, unknown][] = [
    [undefined, PASSWD, { name: ['www-data', 'www-data'], uid: 33, gid: 33 }],
    [undefined, PASSWD.replace(/^www-data.*\n/m, ''), { name: ['nobody', 'nogroup'], uid: 65534, gid: 65534 }],
    ['nginx', PASSWD, { name: ['nginx', 'nginx'], uid: 101, gid: 101 }],
    ['root', PASSWD, { name: ['root', 'root'], uid: 0, gid: 0 }],
    ['ghost', PASSWD, /--worker-user: user "ghost" is not in \/etc\/passwd/],
    [undefined, 'root:x:0:0::/:/bin/sh\n', /--worker-user: neither www-data nor nobody is in \/etc\/passwd/],
    ['odd', PASSWD, /--worker-user: the primary group 4242 of "odd" is not in \/etc\/group/],
    // A name alone on a line, or a line with the right name but no ids, is no user.
    ['broken', `${PASSWD}broken\n`, /user "broken" is not in/],
    ['bad', `${PASSWD}bad:x:abc:def::/:/bin/sh\n`, /user "bad" is not in/],
  ];
  for (const [requested, passwd, want] of cases) {
    if (want instanceof RegExp) assert.throws(() => resolveWorkerUser(requested, passwd, GROUP), want, String(requested));
    else assert.deepEqual(resolveWorkerUser(requested, passwd, GROUP), want, String(requested));
  }
});

test('work dir search: the smallest change that lets the workers (33:33) in, none when they can already', () => {
  const dir = (mode: number, uid = 0, gid = 0) => ({ mode: 0o40000 | mode, uid, gid });
  const cases: [ReturnType<typeof dir>, boolean, { gid: number; mode: number } | undefined][] = [
    [dir(0o700), false, { gid: 33, mode: 0o40710 }], // mktemp -d as root: group becomes the workers'
    [dir(0o750, 0, 5), false, { gid: 5, mode: 0o40751 }], // the group is in use: others may search, never list
    [dir(0o770, 0, 33), true, undefined],
    [dir(0o711), true, undefined],
    [dir(0o755), true, undefined],
    [dir(0o600, 33, 0), false, { gid: 0, mode: 0o40700 }], // the workers own it
    [dir(0o1777), true, undefined],
  ];
  for (const [d, can, fix] of cases) {
    assert.equal(canTraverse(d, 33, 33), can, d.mode.toString(8));
    assert.deepEqual(traverseFix(d, 33, 33), fix, d.mode.toString(8));
  }
  assert.equal(canTraverse(dir(0o700), 0, 0), true, 'root searches anything');
});

test('/debug answers loopback peers only, unless --debug-remote-access', () => {
  const peers: [string | undefined, boolean][] = [
    ['127.0.0.1', true],
    ['127.5.6.7', true],
    ['::1', true],
    ['::ffff:127.0.0.1', true],
    ['::FFFF:127.0.0.1', true],
    ['10.0.0.1', false],
    ['::ffff:10.0.0.1', false],
    ['0.0.0.0', false],
    ['::', false],
    ['fe80::1', false],
    ['128.0.0.1', false],
    ['::2', false],
    ['0:0:0:0:0:0:0:1', true],
    ['::ffff:7f00:1', true],
    [undefined, false],
    ['', false],
    ['localhost', false],
    ['127.0.0.1.example', false],
  ];
  assert.deepEqual(
    peers.map(([p]) => [p, isLoopbackPeer(p)]),
    peers,
  );
  assert.equal(debugRefusal('/debug/config', '127.0.0.1', false), undefined);
  assert.equal(debugRefusal('/healthz', '10.0.0.1', false), undefined, 'kubelet probes come from the pod network');
  assert.equal(debugRefusal('/metrics', '10.0.0.1', false), undefined, 'so does Prometheus');
  assert.equal(debugRefusal('/debug/config', '10.0.0.1', true), undefined);
  assert.equal(
    debugRefusal('/debug/certs', '10.0.0.1', false),
    '/debug/* answers only loopback peers (127.0.0.1, ::1), not 10.0.0.1: read it from inside the pod (kubectl exec, or ' + 'kubectl port-forward), or start Portico with --debug-remote-access\n',
  );
});

test('flags: --healthz-host, --debug-remote-access, --worker-user', () => {
  const c = parseFlags(['--manifests', '/m'], {});
  assert.deepEqual([c.healthzHost, c.debugRemoteAccess, c.workerUser], ['', false, undefined]);
  const d = parseFlags(['--manifests', '/m', '--healthz-host=[::1]', '--debug-remote-access', '--worker-user', 'nginx'], {});
  assert.deepEqual([d.healthzHost, d.debugRemoteAccess, d.workerUser], ['::1', true, 'nginx']);
  assert.equal(parseFlags(['--manifests', '/m', '-healthz-host', '127.0.0.1'], {}).healthzHost, '127.0.0.1');
  assert.throws(() => parseFlags(['--manifests', '/m', '--healthz-host', 'localhost'], {}), /--healthz-host: expected an IP address/);
  assert.throws(() => parseFlags(['--manifests', '/m', '--worker-user', 'a b'], {}), /--worker-user: expected a user name/);
  assert.throws(() => parseFlags(['--manifests', '/m', '--worker-user', '0'], {}), /--worker-user: expected a user name/);
});
