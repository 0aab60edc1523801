// What Portico reads from ingress-nginx but does differently, and what it knows and refuses: migrate-check's notes.
// Rows name annotations, ConfigMap keys and flags of the code's own tables (test/migrate checks they exist there).

/** Annotations Portico reads and applies, with a behaviour that differs from ingress-nginx's (docs/migration.md). */
export const ANNOTATION_DIFFERENCES: Readonly<Record<string, string>> = {
  'force-ssl-redirect': 'the redirect keeps the URI as sent: Location https://host/ where ingress-nginx strips a trailing slash (https://host)',
  'preserve-trailing-slash': 'accepted and changes nothing: Portico always keeps the URI as sent in the HTTPS redirect (ingress-nginx strips a trailing slash unless it is set)',
  'auth-cache-key': 'the cache key also names the auth setup, so two Ingresses never share verdicts; responses that set a cookie are not cached',
  'backend-protocol': 'FCGI sends the standard CGI parameters Portico writes out (not /etc/nginx/fastcgi_params), a fastcgi-params-configmap key replacing its namesake',
  'fastcgi-params-configmap': 'values may name only the variables docs/annotations.md lists ($document_root, $fastcgi_script_name, $request_uri, $http_*, …); any other refuses the Ingress',
  'stream-snippet': 'refused under --snippet-mode=safe (the default): stream{} has no place of one Ingress; rendered as ingress-nginx does with --snippet-mode=any',
  'custom-headers': "as ingress-nginx 1.12+: every header name must be in the ConfigMap's global-allowed-response-headers (exact case), else the Ingress is refused",
};

/**
 * use-regex on a host where another Ingress has Prefix or Exact paths (check.ts decides when it applies): ingress-nginx
 * turns every path of the host into a case-insensitive regex; Portico only the paths of the Ingress that asks.
 */
export const USE_REGEX_DIFFERENCE =
  "ingress-nginx makes every path of the host a case-insensitive regex (~*), other Ingresses' Prefix and Exact paths included; Portico makes only this Ingress's paths regex, so other Ingresses' paths on the host stay case-sensitive (/API/x does not reach a Prefix /api path) and keep their own match type";

/** ConfigMap keys Portico reads, with a behaviour that differs. */
export const CONFIGMAP_DIFFERENCES: Readonly<Record<string, string>> = {
  'access-log-path': "a file inside Portico's --work-dir unless set; nginx writes it as Portico's user",
  'syslog-host': 'an IP address only: a host name is refused (nginx would resolve it once, when it loads, and fail the whole configuration if it did not resolve)',
  'use-proxy-protocol':
    'with use-forwarded-headers: a request that carries forwarded-for-proxy-protocol-header (X-Forwarded-For-Proxy-Protocol) itself is refused with 400, as nginx would otherwise take the client address from it; ingress-nginx believes it',
  'stream-snippet': 'under --snippet-mode=safe (the default) only stream-wide timeouts, buffers and access lists (docs/adr/0012); any directive with --snippet-mode=any',
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
  'controller-class',
  'ingress-class',
  'watch-ingress-without-class',
  'watch-namespace',
  'configmap',
  'annotations-prefix',
  'annotations-risk-level',
  'allow-snippet-annotations',
  'default-backend-service',
  'default-ssl-certificate',
  'tcp-services-configmap',
  'udp-services-configmap',
  'enable-ssl-passthrough',
];

/** The class ingress-nginx serves by default: migrate-check's default class. */
export const INGRESS_NGINX_CLASS = { controller: 'k8s.io/ingress-nginx', ingressClass: 'nginx' } as const;
