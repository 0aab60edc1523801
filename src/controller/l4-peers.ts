// The peers tables of Gateway TCP/UDP listeners (docs/adr/0041): one JSON file per listener in the work directory's
// `l4`, which nginx's njs script reads per connection; rewriting one changes endpoints and weights without a reload.
import { join } from 'node:path';
import type { Model } from '../model/types.js';
import { l4PeerTables, type L4JsOptions } from '../render/stream-l4-js.js';
import { pruneFiles, writeChangedFiles } from '../workfiles.js';

/** Table files are `tcp-PORT.json` / `udp-PORT.json` (render/stream-l4-js.ts l4TableName), or their temp files. */
const TABLE_FILE = /^(tcp|udp)-[0-9]{1,5}\.json(\.tmp)?$/;

/**
 * Writes the tables whose content changed (workfiles.ts writeChangedFiles: temp file + rename, so a session reads the
 * old table or the new one; 0640, the workers' group). Before a reload, so a new listener's table is there when its
 * first connection comes. Returns the number of files written.
 */
export async function writeL4Tables(js: L4JsOptions, model: Model): Promise<number> {
  const tables = l4PeerTables(model.stream?.gateway);
  return writeChangedFiles(js.tableDir, new Map([...tables].map(([name, content]) => [join(js.tableDir, name), content])));
}

/** Removes the tables of listeners the served configuration no longer has (after it is applied). */
export async function pruneL4Tables(js: L4JsOptions, model: Model): Promise<number> {
  return pruneFiles(js.tableDir, TABLE_FILE, new Set(l4PeerTables(model.stream?.gateway).keys()));
}
