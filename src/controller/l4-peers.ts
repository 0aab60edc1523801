// The peers tables of Gateway TCP/UDP listeners (docs/adr/0041): one JSON file per listener in the work directory's
// `l4`, which nginx's njs script reads per connection; rewriting one changes endpoints and weights without a reload.
import { mkdir, readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Model } from '../model/types.js';
import { l4PeerTables, type L4JsOptions } from '../render/stream-l4-js.js';
import { writeAtomic } from '../workfiles.js';

/** Table files are `tcp-PORT.json` / `udp-PORT.json` (render/stream-l4-js.ts l4TableName), or their temp files. */
const TABLE_FILE = /^(tcp|udp)-[0-9]{1,5}\.json(\.tmp)?$/;

/**
 * Writes the tables whose content changed, atomically (temp file + rename: a session reads the old table or the new
 * one). Files are 0640, owned by Portico and by the group of the `l4` folder, which Nginx.prepare() gives the
 * workers' group: workers read them, never write them. Before a reload, so a new listener's table is there when its
 * first connection comes. Returns the number of files written.
 */
export async function writeL4Tables(js: L4JsOptions, model: Model): Promise<number> {
  const tables = l4PeerTables(model.stream?.gateway);
  if (tables.size === 0) return 0;
  await mkdir(js.tableDir, { recursive: true, mode: 0o750 });
  const owner = process.getuid?.() === 0 ? { uid: 0, gid: (await stat(js.tableDir)).gid } : undefined;
  let written = 0;
  for (const [name, content] of tables) {
    const path = join(js.tableDir, name);
    const old = await readFile(path, 'utf8').catch(() => undefined);
    if (old === content) continue;
    await writeAtomic(path, content, owner, 0o640);
    written += 1;
  }
  return written;
}

/** Removes the tables of listeners the served configuration no longer has (after it is applied). */
export async function pruneL4Tables(js: L4JsOptions, model: Model): Promise<number> {
  const keep = new Set(l4PeerTables(model.stream?.gateway).keys());
  const names = await readdir(js.tableDir).catch(() => [] as string[]);
  let removed = 0;
  for (const name of names) {
    if (!TABLE_FILE.test(name) || keep.has(name)) continue;
    await rm(join(js.tableDir, name), { force: true });
    removed += 1;
  }
  return removed;
}
