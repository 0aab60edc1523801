// The read-only dashboard at /dashboard: the files of static/dashboard and their JSON feed; no write action, no secret.
import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';

const DIR = fileURLToPath(new URL('../../../static/dashboard/', import.meta.url));

const FILES: Readonly<Record<string, readonly [string, string]>> = {
  '/dashboard': ['index.html', 'text/html; charset=utf-8'],
  '/dashboard/': ['index.html', 'text/html; charset=utf-8'],
  '/dashboard/app.js': ['app.js', 'text/javascript; charset=utf-8'],
  '/dashboard/style.css': ['style.css', 'text/css; charset=utf-8'],
};

/**
 * Everything from this origin only (no external asset: it works offline), no frames, no inline script: the page
 * shows data from the feed as text, never as markup.
 */
const HEADERS = {
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

export interface Dashboard {
  /** Answers a GET/HEAD for `path` if it is the dashboard's; false otherwise. */
  handle(path: string, res: ServerResponse): boolean;
}

/** Loads the static files once; `state` is the inspector's JSON document (src/inspect/state.ts). */
export async function loadDashboard(state: () => Promise<string>): Promise<Dashboard> {
  const files = new Map<string, { body: string; type: string }>();
  for (const [path, [file, type]] of Object.entries(FILES)) files.set(path, { body: await readFile(`${DIR}${file}`, 'utf8'), type });
  return {
    handle(path, res) {
      const file = files.get(path);
      if (file) {
        res.writeHead(200, { ...HEADERS, 'content-type': file.type });
        res.end(file.body);
        return true;
      }
      if (path !== '/dashboard/state.json') return false;
      state()
        .then((body) => {
          res.writeHead(200, { ...HEADERS, 'content-type': 'application/json' });
          res.end(body);
        })
        .catch((err: unknown) => {
          res.writeHead(500, { ...HEADERS, 'content-type': 'text/plain' });
          res.end(`${String(err)}\n`);
        });
      return true;
    },
  };
}
