# A copy of an ingress-nginx Ingress for Portico's class, beside the original (docs/install.md, side by side):
#   kubectl -n NS get ingress NAME -o json | jq -f deploy/overlays/side-by-side/copy-ingress.jq | kubectl apply -f -
# Same rules, annotations, TLS and backends; the name gets -portico, the class is portico, the server-set fields go.
del(.status, .metadata.uid, .metadata.resourceVersion, .metadata.generation, .metadata.creationTimestamp,
    .metadata.managedFields, .metadata.ownerReferences)
| .metadata.annotations |= (if . == null then null else del(.["kubernetes.io/ingress.class"], .["kubectl.kubernetes.io/last-applied-configuration"]) end)
| .metadata.labels = ((.metadata.labels // {}) + {"portico.dev/copy-of": .metadata.name})
| .metadata.name += "-portico"
| .spec.ingressClassName = "portico"
