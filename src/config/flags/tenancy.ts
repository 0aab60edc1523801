// The flags of what tenants may do: host ownership, canaries, annotations and snippets, upstream targets.
import { ConfigError } from '../../errors.js';
import { text, toggle, type Flag, type FlagContext } from '../flag.js';
import { parseCidrList, parseRiskLevel, parseSnippetMode } from '../values.js';

/** An annotation prefix: a DNS-like word, as the annotation keys' prefix. */
function parseAnnotationsPrefix(flag: string, value: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9./-]*$/.test(value)) throw new ConfigError(`--${flag}: not a valid annotation prefix: ${JSON.stringify(value)}`);
  return value;
}

/**
 * --allow-loopback-upstreams when not given. In a pod (POD_NAME or KUBERNETES_SERVICE_HOST set), loopback is the
 * controller's own pod, or with hostNetwork the node's own services: refused. In local mode (the operator writes every
 * manifest) or outside a pod, loopback is the operator's own machine: allowed.
 */
function loopbackUpstreams(_flag: string, t: string, ctx: FlagContext): boolean {
  if (t !== 'auto') return t === 'true';
  const manifests = ctx.given('manifests');
  return (typeof manifests === 'string' && manifests !== '') || !(ctx.env['POD_NAME'] || ctx.env['KUBERNETES_SERVICE_HOST']);
}

export const TENANCY_FLAGS = {
  /** A host belongs to the namespace of its oldest Ingress; other namespaces' rules, aliases and TLS on it are refused (docs/adr/0008). */
  strictHostOwnership: toggle('strict-host-ownership', false, "a host belongs to the namespace of its oldest Ingress; other namespaces' rules on it are refused"),
  /** Canaries may attach to main paths of other namespaces (ingress-nginx's behaviour, a tenant risk). */
  allowCrossNamespaceCanaries: toggle(
    'allow-cross-namespace-canaries',
    false,
    "let a canary Ingress attach to a main path of another namespace, as ingress-nginx did (a tenant risk: the canary takes the other namespace's requests, docs/security.md)",
  ),
  annotationsPrefix: text('annotations-prefix', 'nginx.ingress.kubernetes.io', 'prefix of the annotations read', parseAnnotationsPrefix),
  /** Annotations rated above this are refused (ingress-nginx 1.12+ default: High). */
  annotationsRiskLevel: text('annotations-risk-level', 'High', 'refuse annotations rated above this: Low, Medium, High or Critical', parseRiskLevel),
  allowSnippetAnnotations: toggle(
    'allow-snippet-annotations',
    false,
    'let *-snippet annotations apply (default false, as in ingress-nginx since v1.9; the ConfigMap key of the same name overrides it); --snippet-mode then decides which',
  ),
  /** refuse, safe (the allowlist of docs/adr/0012, default) or any (ingress-nginx's behaviour). */
  snippetMode: text(
    'snippet-mode',
    'safe',
    "snippets: refuse; safe (only the allowlisted directives of docs/adr/0012); any (ingress-nginx's behaviour, also needs --annotations-risk-level=Critical); every mode but refuse needs allow-snippet-annotations",
    parseSnippetMode,
  ),
  /** Tenant targets may be loopback (never on Portico's own ports); `auto`: see loopbackUpstreams. */
  allowLoopbackUpstreams: {
    name: 'allow-loopback-upstreams',
    type: 'boolean',
    default: 'auto',
    doc: "let tenants' backends, mirror-target and auth-url use loopback, never on Portico's own ports (default: true in local mode or outside a pod, false in a pod)",
    parse: loopbackUpstreams,
  } satisfies Flag<boolean>,
  /** Ranges tenant targets may use although their class is refused (docs/adr/0007). */
  allowUpstreamCidrs: text('allow-upstream-cidrs', '', 'comma-separated CIDRs tenant targets may use although refused (link-local, multicast...), e.g. 169.254.20.10/32', parseCidrList),
};
