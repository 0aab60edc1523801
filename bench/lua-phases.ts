// bench/lua-phases: the instructions each Lua entry of a request costs, read from a callgrind dump of the proxy's nginx.
//
// lua-nginx-module enters Lua for a request through one C function per directive; callgrind's inclusive cost of that
// function is everything the entry does: setting up the Lua call (and, for rewrite_by_lua, the request's coroutine
// and context), the chunk and the modules it calls, JIT-compiled or interpreted code, and the calls back into nginx.
// Divided by the requests of the run, it is the entry's instructions per request. Used by bench/proxy-attribute.
import { execFile } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);

/** Lua entries, by the lua-nginx-module 0.10.23 function that runs each (an nginx.conf directive per row). */
export const LUA_ENTRIES: readonly (readonly [string, string])[] = [
  ['set_by_lua (request id)', 'ngx_http_lua_filter_set_by_lua_inline'],
  ['rewrite_by_lua (router)', 'ngx_http_lua_rewrite_handler'],
  // the peer callback itself (ngx_http_lua_balancer_get_peer) is static, without a symbol in Debian's module: its
  // exported callee that runs the chunk is counted, which leaves out the callback's own few hundred instructions
  ['balancer_by_lua', 'ngx_http_lua_balancer_handler_inline'],
  ['log_by_lua (metrics)', 'ngx_http_lua_log_handler'],
];

/** The newest dump callgrind wrote for `pid` in `dir` (callgrind_control -d numbers them .1, .2, ...). */
export async function newestDump(dir: string, pid: number): Promise<string | undefined> {
  const prefix = `cg.${pid}.out.`;
  let best: [number, string] | undefined;
  for (const f of await readdir(dir)) {
    if (!f.startsWith(prefix)) continue;
    const n = Number(f.slice(prefix.length));
    if (Number.isInteger(n) && (best === undefined || n > best[0])) best = [n, f];
  }
  return best && join(dir, best[1]);
}

/** Inclusive instructions of each LUA_ENTRIES function in one dump (0 when the entry never ran). */
export async function entryCosts(dump: string): Promise<Map<string, number>> {
  const { stdout } = await exec('callgrind_annotate', ['--inclusive=yes', '--threshold=100', dump], { maxBuffer: 64 * 1024 * 1024, timeout: 120_000 });
  const out = new Map<string, number>(LUA_ENTRIES.map(([name]) => [name, 0]));
  for (const line of stdout.split('\n')) {
    // "  1,234,567 (12.3%)  ???:ngx_http_lua_log_handler [/usr/lib/nginx/modules/ngx_http_lua_module.so]"
    const m = /^\s*([\d,]+)\s.*:([A-Za-z_][\w]*)\s/.exec(line);
    if (!m) continue;
    const entry = LUA_ENTRIES.find(([, fn]) => fn === m[2]);
    if (entry) out.set(entry[0], Math.max(out.get(entry[0]) ?? 0, Number(m[1]!.replace(/,/g, ''))));
  }
  return out;
}
