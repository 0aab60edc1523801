// The demo's backends: web, api and admin on 127.0.0.1:18081-18083, until SIGINT/SIGTERM.
import { startBackend } from './backends.js';

const backends = await Promise.all([startBackend('web', 18081), startBackend('api', 18082), startBackend('admin', 18083)]);
process.stdout.write(`backends listening: ${backends.map((b) => `${b.id}=127.0.0.1:${b.port}`).join(' ')}\n`);
const stop = (): void => {
  void Promise.all(backends.map((b) => b.close())).then(() => process.exit(0));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
