// What Portico reads from ingress-nginx but does differently, and what it knows and refuses: migrate-check's notes.
// Rows name annotations, ConfigMap keys and flags of the code's own tables (test/migrate checks they exist there).

/** Annotations Portico reads and applies, with a behaviour that differs from ingress-nginx's (docs/migration.md). */
export const ANNOTATION_DIFFERENCES: Readonly<Record<string, string>> = {
  'preserve-trailing-slash': 'accepted and changes nothing: Portico always keeps the URI as sent in the HTTPS redirect (ingress-nginx strips a trailing slash unless it is set)',
  'auth-url': 'host names are resolved per request with the name servers of /etc/resolv.conf; nginx variables in the URL are refused',
  'auth-cache-key': 'the cache key also names the auth setup, so two Ingresses never share verdicts; responses that set a cookie are not cached',
  'whitelist-source-range': 'allowlist-source-range wins when both are set',
};

/** ConfigMap keys Portico reads, with a behaviour that differs. */
export const CONFIGMAP_DIFFERENCES: Readonly<Record<string, string>> = {
  'access-log-path': "a file inside Portico's --work-dir unless set; nginx writes it as Portico's user",
};

/** ingress-nginx ConfigMap keys Portico knows it does not provide, and why (other keys it does not read are unknown). */
export const CONFIGMAP_REFUSED: Readonly<Record<string, string>> = {
  'enable-modsecurity': "ModSecurity is not part of Debian's nginx packages that Portico runs",
  'enable-owasp-modsecurity-crs': "ModSecurity is not part of Debian's nginx packages that Portico runs",
  'use-geoip2': "the GeoIP2 module is not part of Debian's nginx packages that Portico runs",
  'enable-opentelemetry': "OpenTelemetry tracing is not part of Debian's nginx packages that Portico runs",
  'plugins': 'Portico loads no Lua plugins',
  'http-snippet': 'global snippets are not read (raw nginx configuration from a ConfigMap)',
  'server-snippet': 'global snippets are not read (raw nginx configuration from a ConfigMap)',
  'main-snippet': 'global snippets are not read (raw nginx configuration from a ConfigMap)',
  'location-snippet': 'global snippets are not read (raw nginx configuration from a ConfigMap)',
};

/** ingress-nginx flags Portico accepts with a difference. */
export const FLAG_DIFFERENCES: Readonly<Record<string, string>> = {
  'validating-webhook': "Portico's webhook judges with its model only and never runs nginx -t on the candidate (ingress-nginx's did: CVE-2025-1974)",
  'election-id': "Portico elects its leader on a Lease of that name in its own namespace; it never shares ingress-nginx's Lease",
};

/** ingress-nginx flags Portico knows it does not provide, and why (other flags it does not read are unknown). */
export const FLAG_REFUSED: Readonly<Record<string, string>> = {
  'enable-ssl-passthrough': 'ssl-passthrough is not implemented yet; its Ingresses are refused',
  'tcp-services-configmap': 'TCP services (the stream section) are not implemented yet',
  'udp-services-configmap': 'UDP services (the stream section) are not implemented yet',
  'enable-ssl-chain-completion': 'Portico serves certificate chains as the Secret holds them and never fetches intermediates',
};

/**
 * Flags of ingress-nginx's Deployment that change which Ingresses are served and how annotations are judged:
 * migrate-check evaluates with them, as Portico would run with them after a takeover.
 */
export const EVALUATED_FLAGS: readonly string[] = [
  'controller-class', 'ingress-class', 'watch-ingress-without-class', 'watch-namespace', 'configmap', 'annotations-prefix',
  'annotations-risk-level', 'allow-snippet-annotations', 'default-backend-service', 'default-ssl-certificate',
];

/** The class ingress-nginx serves by default: migrate-check's default class. */
export const INGRESS_NGINX_CLASS = { controller: 'k8s.io/ingress-nginx', ingressClass: 'nginx' } as const;
