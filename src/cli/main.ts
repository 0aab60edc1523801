// The `portico` command: `portico [flags]` runs the controller, `portico render` prints nginx.conf.
import { ConfigError, errorMessage, PorticoError } from '../errors.js';
import { helpText, parseFlags } from '../config/flags.js';
import { INSPECT_COMMANDS } from '../config/flags.js';
import { versionText } from './version.js';

// Each command loads only what it uses (start-up time): the controller, the Kubernetes client, migrate-check, the
// inspector and the logger (pino, 40 files) are imported when their command runs; `--version` and `--help` load the
// flags alone.

async function main(): Promise<number> {
  // The inspector reads a running instance: its own flags (--url, --json), none of the controller's.
  const [first, ...rest] = process.argv.slice(2);
  const inspect = INSPECT_COMMANDS.find((c) => c === first);
  if (inspect !== undefined) {
    const { runInspect } = await import('../inspect/command.js');
    return runInspect(inspect, rest, process.stdout, process.stderr);
  }
  let config;
  try {
    config = parseFlags(process.argv.slice(2), process.env);
  } catch (err) {
    process.stderr.write(`portico: ${errorMessage(err)}\n`);
    return err instanceof ConfigError ? 2 : 1;
  }
  if (config.help) {
    process.stdout.write(`${helpText()}\n`);
    return 0;
  }
  if (config.version) {
    process.stdout.write(await versionText(config.nginxBinary));
    return 0;
  }
  if (config.mode === 'migrate-check') {
    if (!config.manifests && !config.kubeconfig && !config.apiserverHost && !process.env['KUBERNETES_SERVICE_HOST']) {
      process.stderr.write('portico migrate-check: give --manifests DIR or --kubeconfig FILE\n');
      return 2;
    }
    const { migrateCheck } = await import('../migrate/command.js');
    return migrateCheck(process.argv.slice(2), process.env, config.json);
  }
  if (config.mode === 'render') {
    if (!config.manifests) {
      process.stderr.write('portico render: --manifests DIR is required\n');
      return 2;
    }
    const { createLogger } = await import('../log.js');
    const log = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, process.stderr);
    const { renderOnce } = await import('./render.js');
    const text = await renderOnce({ ...config, manifests: config.manifests }, log);
    // A reader that stops early (`portico render | head`) closes the pipe: it had what it wanted, no stack trace.
    process.stdout.on('error', (err: NodeJS.ErrnoException) => {
      process.exit(err.code === 'EPIPE' ? 0 : 1);
    });
    // Exits once the text is written, without tearing down a heap of the whole cluster.
    await new Promise<void>((resolve) => {
      process.stdout.write(text, () => {
        resolve();
      });
    });
    process.exit(0);
  }
  const { createLogger, stdoutDestination } = await import('../log.js');
  const log = createLogger(config.logLevel, stdoutDestination());
  for (const w of config.warnings) log.warn({ flag: w.split(' ')[0] }, w);
  const { runController } = await import('../controller/run.js');
  const { exitAfter } = await import('../controller/stop.js');
  try {
    // npm (`npx portico`, `npm run`) starts Portico under `sh -c` and signals that shell only: stop when it exits.
    return await runController(config, log, { watchParent: process.env['npm_lifecycle_event'] !== undefined });
  } catch (err) {
    log.fatal({ code: err instanceof PorticoError ? err.code : undefined }, errorMessage(err));
    exitAfter(1, 2000, log); // nothing left running may keep a failed start alive
    return 1;
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`portico: ${errorMessage(err)}\n`);
    process.exitCode = 1;
  },
);
