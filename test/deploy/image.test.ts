// The image's root filesystem, built as the Dockerfile describes it (scripts/image-rootfs.sh: mmdebstrap minbase +
// image/install.sh + scripts/image-app.sh), runs Portico: --version, and the demo served from a read-only root with
// /tmp on a tmpfs, as the unprivileged user 10001, nginx workers too. Needs root and mmdebstrap (scripts/setup.sh).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { access, chmod, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startBackend, type Backend } from '../support/backends.js';
import { freePort, get, REPO, until, who } from '../support/portico.js';

const run = promisify(execFile);
const CHROOT_RUN = join(REPO, 'test/deploy/chroot-run.sh');

async function why(): Promise<string | false> {
  if (process.getuid?.() !== 0) return 'building a root filesystem and chroot need root (CI runs as root)';
  for (const tool of ['mmdebstrap', 'unshare', 'chroot']) {
    if (
      await run('sh', ['-c', `command -v ${tool}`]).then(
        () => false,
        () => true,
      )
    )
      return `${tool} is not installed (scripts/setup.sh installs mmdebstrap)`;
  }
  return false;
}

/** The uid a process runs as (from /proc). */
async function uidOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]);
}

describe('the image root filesystem', async () => {
  const skip = await why();
  let root = '';
  let demo = '';
  let built = '';
  before(async () => {
    if (skip) return;
    root = await mkdtemp(join(tmpdir(), 'portico-rootfs-'));
    await rm(root, { recursive: true }); // mmdebstrap wants to make the folder itself
    const out = await run('bash', [join(REPO, 'scripts/image-rootfs.sh'), root], { timeout: 15 * 60_000, maxBuffer: 16 * 1024 * 1024 });
    built = out.stdout.trim().split('\n').pop() ?? '';
    process.stdout.write(`# ${built}\n`);
    await mkdir(join(root, 'demo'));
    demo = await mkdtemp(join(tmpdir(), 'portico-demo-'));
    await chmod(demo, 0o755); // the user portico reads it
  });
  after(async () => {
    if (root) await rm(root, { recursive: true, force: true });
    if (demo) await rm(demo, { recursive: true, force: true });
  });

  void test('portico --version: version, git commit, nginx package from bookworm-security, Node.js', { skip }, async () => {
    const { stdout } = await run('unshare', ['--mount', '--propagation', 'private', 'sh', CHROOT_RUN, root, demo, '/usr/local/bin/node', '/app/bin/portico.js', '--version'], { timeout: 60_000 });
    const pkg = JSON.parse(await readFile(join(REPO, 'package.json'), 'utf8')) as { version: string };
    const commit = (await run('git', ['rev-parse', 'HEAD'], { cwd: REPO })).stdout.trim();
    const lines = stdout.trim().split('\n');
    assert.equal(lines[0], `portico ${pkg.version}`);
    assert.equal(lines[1], `commit  ${commit}`);
    const nginx = /^nginx {3}(\S+) \(package\), nginx\/1\.22\.1$/.exec(lines[2] ?? '');
    assert.ok(nginx?.[1], lines[2]);
    await run('dpkg', ['--compare-versions', nginx[1], 'ge', '1.22.1-9+deb12u11']);
    assert.equal(lines[3], `node    ${process.version}`);
  });

  void test('only built output and production dependencies are in /app', { skip }, async () => {
    const modules = await readdir(join(root, 'app/node_modules'));
    for (const dev of ['typescript', 'eslint', 'fast-check', 'kubernetes-models', 'playwright-core']) assert.ok(!modules.includes(dev), `${dev} is a devDependency`);
    assert.deepEqual((await readdir(join(root, 'app'))).sort(), ['bin', 'build-info.json', 'dist', 'lua', 'njs', 'node_modules', 'package.json', 'static']);
    assert.deepEqual(await readdir(join(root, 'app/dist')), ['src']);
    await assert.rejects(access(join(root, 'usr/bin/apt-get.dpkg-new')));
  });

  void test('the demo is served from a read-only root as user 10001, nginx workers too; SIGTERM stops it with 0', { skip }, async () => {
    const backends: Backend[] = await Promise.all(['web', 'api', 'admin'].map((id) => startBackend(id)));
    let proc: ChildProcess | undefined;
    try {
      let yaml = await readFile(join(REPO, 'examples/demo.yaml'), 'utf8');
      backends.forEach((b, i) => {
        yaml = yaml.replaceAll(String(18081 + i), String(b.port));
      });
      await writeFile(join(demo, 'demo.yaml'), yaml);
      const [http, https, healthz, status] = [await freePort(), await freePort(), await freePort(), await freePort()];
      proc = spawn(
        'unshare',
        [
          '--mount',
          '--propagation',
          'private',
          'sh',
          CHROOT_RUN,
          root,
          demo,
          '/usr/local/bin/node',
          '/app/bin/portico.js',
          '--manifests',
          '/demo',
          '--http-port',
          String(http),
          '--https-port',
          String(https),
          '--healthz-port',
          String(healthz),
          '--status-port',
          String(status),
          '--work-dir',
          '/tmp/portico',
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      const output: string[] = [];
      proc.stdout?.on('data', (c: Buffer) => output.push(c.toString()));
      proc.stderr?.on('data', (c: Buffer) => output.push(c.toString()));
      const exited = new Promise<number | null>((resolve) => proc?.once('exit', resolve));
      await until('/healthz in the chroot', async () => (await get(healthz, 'localhost', '/healthz')).status === 200, 30_000).catch((err: unknown) => {
        throw new Error(`${String(err)}\n${output.join('').slice(-3000)}`);
      });
      assert.equal(await who(http, 'shop.example.com', '/'), 'web');
      assert.equal(await who(http, 'shop.example.com', '/api/items'), 'api');
      assert.equal(await who(http, 'shop.example.com', '/apix'), 'web');
      assert.equal(await who(http, 'eu.admin.example.com', '/'), 'admin');
      assert.equal(await who(http, 'a.b.admin.example.com', '/'), '404');
      const pid = proc.pid ?? 0;
      assert.equal(await uidOf(pid), 10001, 'Portico (node) runs as portico');
      const master = Number((await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8')).trim().split(/\s+/)[0]);
      const workers = (await readFile(`/proc/${master}/task/${master}/children`, 'utf8')).trim().split(/\s+/).map(Number);
      assert.deepEqual([...new Set(await Promise.all([master, ...workers].map(uidOf)))], [10001], 'nginx master and workers run as portico');
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc?.kill('SIGKILL'), 20_000);
      assert.equal(await exited, 0, output.join('').slice(-2000));
      clearTimeout(timer);
    } finally {
      if (proc && proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
      await Promise.all(backends.map((b) => b.close()));
    }
  });
});
