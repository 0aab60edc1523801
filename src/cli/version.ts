// `portico --version`: Portico's version, the git commit it was built from, and the nginx it will run.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
// launch.ts, not process.ts: process.ts brings the renderer, which `--version` never uses (start-up time).
import { nginxVersion } from '../nginx/launch.js';

const ROOT = new URL('../../../', import.meta.url);

/** The commit: build-info.json (written into the image by scripts/image-app.sh), else the checkout's HEAD. */
async function commit(): Promise<string> {
  const info = await readFile(new URL('build-info.json', ROOT), 'utf8').then(
    (t) => JSON.parse(t) as { commit?: unknown },
    () => undefined,
  );
  if (typeof info?.commit === 'string' && info.commit !== '') return info.commit;
  return new Promise((resolve) => {
    execFile('git', ['rev-parse', 'HEAD'], { cwd: fileURLToPath(ROOT), timeout: 5000 }, (err, stdout) => {
      resolve(err ? 'unknown' : stdout.trim());
    });
  });
}

/** The text `portico --version` prints. */
export async function versionText(nginxBinary: string): Promise<string> {
  // The three reads wait on two child processes (nginx -v, git): side by side, not one after another.
  const [text, nginx, sha] = await Promise.all([readFile(new URL('package.json', ROOT), 'utf8'), nginxVersion(nginxBinary), commit()]);
  const pkg = JSON.parse(text) as { version: string };
  return [`portico ${pkg.version}`, `commit  ${sha}`, `nginx   ${nginx.package} (package), ${nginx.nginx.replace(/^nginx version: /, '')}`, `node    ${process.version}`, ''].join('\n');
}
