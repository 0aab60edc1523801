// The self-signed default certificate, made at start: node:crypto makes the key, the `openssl` CLI signs it.
import { execFile } from 'node:child_process';
import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { certificateInfo } from '../model/tls-secrets.js';
import { Sensitive, type CertificateInfo } from '../model/tls-types.js';
import { FALLBACK_CERT, FALLBACK_KEY } from '../render/tls.js';
import { PorticoError, ErrorCodes, errorMessage } from '../errors.js';

const run = promisify(execFile);
/** ingress-nginx's fake certificate has this subject too, so clients and monitors recognise it. */
const SUBJECT = '/O=Acme Co/CN=Kubernetes Ingress Controller Fake Certificate';

export interface Fallback {
  readonly pem: Sensitive;
  readonly info: CertificateInfo;
}

/**
 * Writes `ssl/default.key` and `ssl/default.crt` (both 0600, in a 0700 folder of the work directory): the static
 * certificate nginx -t needs, and the default Lua serves when no --default-ssl-certificate is usable.
 */
export async function makeSelfSigned(workDir: string, openssl = 'openssl'): Promise<Fallback> {
  const dir = join(workDir, 'ssl');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const keyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const keyFile = join(workDir, FALLBACK_KEY);
  const crtFile = join(workDir, FALLBACK_CERT);
  await writeFile(`${keyFile}.tmp`, keyPem, { mode: 0o600 });
  await rename(`${keyFile}.tmp`, keyFile);
  try {
    await run(openssl, ['req', '-x509', '-new', '-key', keyFile, '-days', '3650', '-subj', SUBJECT, '-addext', 'subjectAltName=DNS:ingress.local', '-out', `${crtFile}.tmp`], { timeout: 30_000 });
  } catch (err) {
    throw new PorticoError(ErrorCodes.TLS_SETUP_FAILED, `could not make the self-signed default certificate with ${openssl}: ${errorMessage(err)}`);
  }
  await chmod(`${crtFile}.tmp`, 0o600);
  await rename(`${crtFile}.tmp`, crtFile);
  const crtPem = await readFile(crtFile, 'utf8');
  return { pem: new Sensitive(`${crtPem.trim()}\n${keyPem.trim()}\n`), info: certificateInfo(new X509Certificate(crtPem)) };
}
