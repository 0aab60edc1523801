// Whether nginx's stream njs module is installed, looked at once at start (docs/adr/0041): with it, Gateway TCP/UDP
// listeners take their peers from tables Portico rewrites (no reload); without it, static upstreams (a reload each).
import { access, constants } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import type { Logger } from '../log.js';
import type { L4JsOptions } from '../render/stream-l4-js.js';

/** Portico's njs script, shipped beside lua/. */
const L4_SCRIPT = fileURLToPath(new URL('../../../njs/portico_l4.js', import.meta.url));

/** The folder of the peers tables in the work directory (Nginx.prepare gives it to the workers' group). */
const L4_TABLE_DIR = 'l4';

/** The njs options when `--stream-js-module` names a readable file (and the script is there), else undefined with one info line. */
async function detectStreamJs(o: { readonly streamJsModule: string; readonly workDir: string }, log: Logger, script = L4_SCRIPT): Promise<L4JsOptions | undefined> {
  const readable = async (p: string): Promise<boolean> =>
    p.startsWith('/') &&
    (await access(p, constants.R_OK).then(
      () => true,
      () => false,
    ));
  const moduleOk = await readable(o.streamJsModule);
  const scriptOk = await readable(script);
  if (moduleOk && scriptOk) return { module: o.streamJsModule, script, tableDir: join(o.workDir, L4_TABLE_DIR) };
  const missing = o.streamJsModule === '' ? '--stream-js-module is empty' : `${moduleOk ? script : o.streamJsModule} is not readable`;
  log.info(
    { module: o.streamJsModule },
    `${missing}: TCPRoute and UDPRoute endpoints are static stream upstreams, each change reloads nginx (install libnginx-mod-stream-js to change them without a reload)`,
  );
  return undefined;
}

/** The render option `l4Js` when the Gateway API is on and the module is there (one info line when it is not), else none. */
export async function streamJsOption(config: { readonly enableGatewayApi: boolean; readonly streamJsModule: string; readonly workDir: string }, log: Logger): Promise<{ l4Js?: L4JsOptions }> {
  const js = config.enableGatewayApi ? await detectStreamJs(config, log) : undefined;
  return js ? { l4Js: js } : {};
}
