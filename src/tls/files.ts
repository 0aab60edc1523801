// CA, CRL, backend client-certificate and stream certificate files in the work directory (mode 0600): stock nginx reads
// them only on a reload.
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Model, Server } from '../model/types.js';
import type { Sensitive } from '../model/tls-types.js';
import { ListFold } from '../model/list-fold.js';
import { proxyClientFile } from '../render/proxy-ssl.js';
import { caFile, crlFile, dhParamFile, ticketKeyFile } from '../render/tls.js';
import { writeAtomic } from '../workfiles.js';
import { streamCertFiles } from '../render/stream-tls-terminate.js';

/** The CA bundles, CRLs and client certificates the locations of a server proxy with (proxy-ssl-*). */
function backendFiles(s: Server): readonly (readonly [string, string | Sensitive])[] {
  const found: [string, string | Sensitive][] = [];
  for (const l of s.locations) {
    const p = l.target.kind === 'upstream' ? l.target.settings?.proxySsl : l.backendTls?.proxySsl;
    if (p === undefined || p.denied !== undefined) continue;
    found.push([caFile(p.caDigest), p.caPem]);
    if (p.crlDigest !== undefined && p.crlPem !== undefined) found.push([crlFile(p.crlDigest), p.crlPem]);
    if (p.client) found.push([proxyClientFile(p.client.digest), p.client.pem]);
  }
  return found;
}

/** The servers' files, gathered from the servers a sync changed (model/list-fold.ts). */
const gathered = new ListFold(backendFiles);

/**
 * The files the model needs: relative path → content. CA bundles and CRLs of client-certificate auth (auth-tls-*)
 * and of backend TLS (proxy-ssl-secret), and backend client certificates with their keys.
 */
export function clientFiles(model: Model): Map<string, string | Uint8Array> {
  const files = new Map<string, string | Uint8Array>();
  // ssl-session-ticket-key: the raw 48 or 80 bytes nginx reads.
  const ticket = model.tls.settings.session?.ticketKey;
  if (ticket) files.set(ticketKeyFile(ticket.digest), Buffer.from(ticket.key.reveal(), 'base64'));
  if (model.tls.dhParam) files.set(dhParamFile(model.tls.dhParam.digest), model.tls.dhParam.pem);
  for (const s of model.tls.servers) {
    const ca = s.clientAuth;
    if (!ca || ca.gatewayMode === 'Refused') continue;
    files.set(caFile(ca.caDigest), ca.caPem);
    if (ca.crlDigest && ca.crlPem) files.set(crlFile(ca.crlDigest), ca.crlPem);
  }
  for (const [rel, content] of gathered.of(model.servers)) files.set(rel, typeof content === 'string' ? content : content.reveal());
  // TLS listeners in Terminate mode: their certificates, read by the stream section's terminating servers (docs/adr/0032).
  const routes = model.stream?.tlsRoutes;
  for (const [rel, pem] of streamCertFiles([...(routes?.front ?? []), ...(routes?.ports ?? []).flatMap((p) => p.hosts)])) files.set(rel, pem);
  return files;
}

/** Writes the missing files before `nginx -t` reads them. Names are content digests: a file never changes in place. */
export async function writeClientFiles(workDir: string, model: Model): Promise<number> {
  let written = 0;
  for (const [rel, content] of clientFiles(model)) {
    const path = join(workDir, rel);
    const exists = await stat(path).then(
      () => true,
      () => false,
    );
    if (exists) continue;
    await writeAtomic(path, content);
    written += 1;
  }
  return written;
}

/** Removes CA, CRL and client-certificate files the running configuration no longer names (after a successful reload). */
export async function pruneClientFiles(workDir: string, model: Model): Promise<void> {
  const keep = new Set([...clientFiles(model).keys()].map((rel) => rel.slice('ssl/'.length)));
  const names = await readdir(join(workDir, 'ssl')).catch(() => [] as string[]);
  for (const name of names) {
    if ((/^(ca|crl|proxy-client|stream)-[0-9a-f]+\.pem$/.test(name) || /^(ticket-[0-9a-f]+\.key|dhparam-[0-9a-f]+\.pem)$/.test(name)) && !keep.has(name))
      await rm(join(workDir, 'ssl', name), { force: true });
  }
}
