// The demo's backends until SIGINT/SIGTERM: web, api and admin on 127.0.0.1:18081-18083, or the `id:port` pairs given
// as arguments (docs/migration.md's walkthrough: `node dist/test/support/demo-backends.js web:18081 api:18083 ...`).
import { startBackend } from './backends.js';

const pairs = process.argv.length > 2 ? process.argv.slice(2) : ['web:18081', 'api:18082', 'admin:18083'];
const wanted = pairs.map((p) => {
  const m = /^([a-z0-9-]+):(\d{1,5})$/.exec(p);
  if (!m?.[1] || !m[2]) {
    process.stderr.write(`demo-backends: expected id:port, got ${JSON.stringify(p)}\n`);
    process.exit(2);
  }
  return { id: m[1], port: Number(m[2]) };
});
const backends = await Promise.all(wanted.map((w) => startBackend(w.id, w.port)));
process.stdout.write(`backends listening: ${backends.map((b) => `${b.id}=127.0.0.1:${b.port}`).join(' ')}\n`);
const stop = (): void => {
  void Promise.all(backends.map((b) => b.close())).then(() => process.exit(0));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
