// The dynamic catch-all server (docs/adr/0014) as two blocks: one on the plain-HTTP ports, one on the TLS ports
// (docs/adr/0042). Only an HTTPS answer can carry Portico's Strict-Transport-Security header, so only the TLS block
// holds the headers-more lines that set it. Before, one block served both and every plain-HTTP request ran
// headers-more's filter (a map, a scan of the response headers for the backend's own header, a set: about 1,950
// instructions a request) to put back the header the backend had sent. In the plain block nothing touches the
// header: the backend's own passes as it did. Everything else is the same in both blocks (the named locations the
// router's ngx.exec reaches are per server, so both hold them); the plain block has no SSL context (certificate and hook).
import { ROUTE_HSTS } from './dynamic-profiles.js';
import { HSTS_SERVER } from './tls.js';

export interface CatchAllParts {
  /** The `server_name` line. */
  readonly name: string;
  /** `listen` lines of the plain-HTTP ports (--http-port, Gateway HTTP listeners) and of the TLS ports. */
  readonly plain: readonly string[];
  readonly tls: readonly string[];
  /** The server-level lines after the listens, as one block would have them. */
  readonly body: readonly string[];
  /** The router's locations (render/dynamic-routes.ts), with the HSTS lines. */
  readonly locations: readonly string[];
}

/** The two server blocks' text: the plain one first (the order of the listens in the one block before). */
export function catchAllServers(p: CatchAllParts): string {
  // lines only a TLS server needs: the SSL context's (ssl_certificate, its key, the Lua hook) and the HSTS header
  // lines (read here, not at module load: dynamic-profiles.ts and this module import each other through server-block.ts)
  const hsts = new Set([HSTS_SERVER, ROUTE_HSTS]);
  const plain = (lines: readonly string[]): string[] => lines.filter((l) => !hsts.has(l) && !l.trimStart().startsWith('ssl_certificate'));
  return ['    server {', p.name, ...p.plain, ...plain(p.body), ...plain(p.locations), '    }', '    server {', p.name, ...p.tls, ...p.body, ...p.locations, '    }'].join('\n');
}
