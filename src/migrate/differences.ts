// What Portico reads from ingress-nginx but does differently, and what it knows and refuses: migrate-check's notes.
// Rows name annotations, ConfigMap keys and flags of the code's own tables (test/migrate checks they exist there).

/** Annotations Portico reads and applies, with a behaviour that differs from ingress-nginx's (docs/migration.md). */
export const ANNOTATION_DIFFERENCES: Readonly<Record<string, string>> = {
  'preserve-trailing-slash': 'accepted and changes nothing: Portico always keeps the URI as sent in the HTTPS redirect (ingress-nginx strips a trailing slash unless it is set)',
  'auth-url': 'host names are resolved per request with the name servers of /etc/resolv.conf; a $host URL (oauth2-proxy\'s form) goes to Portico\'s own listener for the request\'s host; other variables are refused',
  'auth-cache-key': 'the cache key also names the auth setup, so two Ingresses never share verdicts; responses that set a cookie are not cached',
  'whitelist-source-range': 'allowlist-source-range wins when both are set',
};

/** ConfigMap keys Portico reads, with a behaviour that differs. */
export const CONFIGMAP_DIFFERENCES: Readonly<Record<string, string>> = {
  'access-log-path': "a file inside Portico's --work-dir unless set; nginx writes it as Portico's user",
};

/** ingress-nginx flags Portico accepts with a difference. */
export const FLAG_DIFFERENCES: Readonly<Record<string, string>> = {
  'validating-webhook': "Portico's webhook judges with its model only and never runs nginx -t on the candidate (ingress-nginx's did: CVE-2025-1974)",
  'election-id': "Portico elects its leader on a Lease of that name in its own namespace; it never shares ingress-nginx's Lease",
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
