// Validation of every name and path that reaches the model: the first line of defence against injection.
import { regexSafety } from './regex-safety.js';

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const IANA_SVC_NAME = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;
/** Strict path validation of ingress-nginx for Exact and Prefix paths (letters, digits, `_ - . /`). */
const STRICT_PATH = /^\/[A-Za-z0-9_./-]*$/;

/** A Kubernetes namespace or other DNS-1123 label; undefined when valid, else the reason. */
export function checkLabel(value: string): string | undefined {
  if (value.length === 0 || value.length > 63 || !DNS1123_LABEL.test(value)) {
    return `${JSON.stringify(clip(value))} is not a DNS-1123 label (lowercase letters, digits, '-', at most 63)`;
  }
  return undefined;
}

/** A Service name (DNS-1035 label). */
export function checkServiceName(value: string): string | undefined {
  if (value.length === 0 || value.length > 63 || !DNS1035_LABEL.test(value)) {
    return `${JSON.stringify(clip(value))} is not a valid Service name (DNS-1035 label)`;
  }
  return undefined;
}

/** A named port (IANA_SVC_NAME: at most 15 lowercase letters, digits and '-', with a letter). */
export function checkPortName(value: string): string | undefined {
  if (value.length === 0 || value.length > 15 || !IANA_SVC_NAME.test(value) || !/[a-z]/.test(value) || value.includes('--')) {
    return `${JSON.stringify(clip(value))} is not a valid port name`;
  }
  return undefined;
}

/** A port number 1-65535. */
export function checkPortNumber(value: unknown): string | undefined {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 65535) {
    return `${JSON.stringify(value)} is not a port number (1-65535)`;
  }
  return undefined;
}

/** An Ingress host: a DNS-1123 subdomain, optionally `*.` and then one; never an IP, never a port. */
export function checkHost(value: string): string | undefined {
  const name = value.startsWith('*.') ? value.slice(2) : value;
  const labels = name.split('.');
  const ok = value.length <= 253 && labels.length >= (value.startsWith('*.') ? 2 : 1) && labels.every((l) => l.length <= 63 && DNS1123_LABEL.test(l));
  if (!ok) {
    return `${JSON.stringify(clip(value))} is not a valid host (a lowercase DNS name, optionally starting with '*.')`;
  }
  if (/^[0-9.]+$/.test(name)) {
    return `${JSON.stringify(value)} is an IP address; Ingress hosts must be DNS names`;
  }
  return undefined;
}

/** An Exact or Prefix path: absolute, strict characters only, no `//`, `/./` or `/../` segments. */
export function checkPath(value: string): string | undefined {
  const reserved = checkReserved(value) ?? checkLength(value);
  if (reserved) return reserved;
  if (!STRICT_PATH.test(value)) {
    return `${JSON.stringify(clip(value))} is not a valid path: it must start with '/' and contain only letters, digits, '_', '-', '.' and '/'`;
  }
  if (/\/\/|\/\.\.?(\/|$)/.test(value)) {
    return `${JSON.stringify(value)} is not a valid path: empty, '.' or '..' segments never match a normalized request`;
  }
  return undefined;
}

/** Paths under /_portico are Portico's own internal locations (external auth, mirrors): a clash would fail nginx -t. */
const RESERVED_PATH_PREFIX = '/_portico';

/** Longest path taken: a prefix location adds '/', and render/escape.ts quotes at most 4096 characters. */
const MAX_PATH = 4000;

function checkLength(value: string): string | undefined {
  return value.length > MAX_PATH ? `a path of ${value.length} characters is longer than ${MAX_PATH}, the most nginx.conf takes here` : undefined;
}

function checkReserved(value: string): string | undefined {
  return value.startsWith(RESERVED_PATH_PREFIX) ? `${JSON.stringify(clip(value))} is reserved: paths under ${RESERVED_PATH_PREFIX} are Portico's internal locations` : undefined;
}

/** Relaxed path check when strict-validate-path-type is off: printable, and nothing nginx.conf would read as syntax. */
export function checkPathRelaxed(value: string): string | undefined {
  const reserved = checkReserved(value);
  if (reserved) return reserved;
  if (!/^\/[\x21-\x7e]{0,1023}$/.test(value) || /["'`;{}$\\#]/.test(value)) {
    return `${JSON.stringify(clip(value))} is not a valid path: it must start with '/', hold printable characters, and no quotes, braces, ';', '$', '#' or backslashes`;
  }
  return undefined;
}

/**
 * A path regular expression (use-regex, rewrite-target): starts with '/', printable, no quotes or ';', at most 512,
 * compiles; lookaround and backreferences are refused because PCRE (nginx) and JavaScript differ there, and
 * nested quantifiers because they backtrack exponentially on every request (model/regex-safety.ts).
 */
export function checkRegexPath(value: string): string | undefined {
  if (!value.startsWith('/') || value.length > 512 || !/^[\x21-\x7e]+$/.test(value) || /["'`;]/.test(value)) {
    return `${JSON.stringify(clip(value))} is not a path regex: it must start with '/', hold at most 512 printable characters, and no quotes or ';'`;
  }
  return checkRegexSyntax(value);
}

/** The checks every regex Portico takes passes (paths, HTTPRoute values): no lookaround or backreference, valid, safe. */
export function checkRegexSyntax(value: string): string | undefined {
  if (/\(\?[^:]|\\[1-9kgpPQE]/.test(value)) return `${JSON.stringify(clip(value))} uses a regex feature Portico refuses (lookaround, backreferences)`;
  try {
    new RegExp(value, 'u');
  } catch (err) {
    return `${JSON.stringify(clip(value))} is not a valid regular expression: ${(err as Error).message}`;
  }
  const unsafe = regexSafety(value);
  return unsafe ? `${JSON.stringify(clip(value))} is refused: ${unsafe}` : undefined;
}

/** Shortens a hostile value for messages (the whole value may be megabytes). */
export function clip(value: string, max = 80): string {
  return value.length > max ? `${value.slice(0, max)}…` : value;
}
