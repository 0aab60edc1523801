// A throwaway self-signed certificate for 127.0.0.1/localhost, made with openssl, for HTTPS tests.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCert { dir: string; certFile: string; keyFile: string; cert: string }

/** Writes cert.pem and key.pem (EC P-256, one day) into a fresh temp dir. */
export function makeCert(): TestCert {
  const dir = mkdtempSync(join(tmpdir(), 'portico-cert-'));
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-keyout', keyFile, '-out', certFile, '-days', '1', '-subj', '/CN=localhost',
    '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'], { stdio: 'ignore' });
  return { dir, certFile, keyFile, cert: readFileSync(certFile, 'utf8') };
}
