#!/usr/bin/env bash
# Makes the admission webhook's certificate without cert-manager: a CA and a server certificate for
# portico-admission.NAMESPACE.svc (openssl), the Secret portico-admission, and the caBundle of the
# ValidatingWebhookConfiguration portico. `deploy/admission-cert.sh [NAMESPACE]` (default portico), with kubectl
# pointed at the cluster; OUT=DIR writes the PEM files there and touches no cluster. Run again to rotate.
set -euo pipefail
NS=${1:-portico}
SVC=portico-admission
DIR=${OUT:-$(mktemp -d)}
mkdir -p "$DIR"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 3650 -subj "/CN=portico-admission-ca" \
  -keyout "$DIR/ca.key" -out "$DIR/ca.crt" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=$SVC.$NS.svc" \
  -keyout "$DIR/tls.key" -out "$DIR/tls.csr" 2>/dev/null
printf 'subjectAltName=DNS:%s,DNS:%s.%s,DNS:%s.%s.svc\nextendedKeyUsage=serverAuth\n' "$SVC" "$SVC" "$NS" "$SVC" "$NS" > "$DIR/ext.cnf"
openssl x509 -req -in "$DIR/tls.csr" -CA "$DIR/ca.crt" -CAkey "$DIR/ca.key" -CAcreateserial -days 825 \
  -extfile "$DIR/ext.cnf" -out "$DIR/tls.crt" 2>/dev/null
if [ -n "${OUT:-}" ]; then echo "admission-cert: wrote $DIR/{ca.crt,tls.crt,tls.key}"; exit 0; fi
kubectl -n "$NS" create secret tls "$SVC" --cert "$DIR/tls.crt" --key "$DIR/tls.key" --dry-run=client -o yaml | kubectl apply -f -
kubectl patch validatingwebhookconfiguration portico --type json \
  -p "[{\"op\":\"add\",\"path\":\"/webhooks/0/clientConfig/caBundle\",\"value\":\"$(base64 -w0 < "$DIR/ca.crt")\"}]"
rm -rf "$DIR"
echo "admission-cert: Secret $NS/$SVC and the webhook's caBundle are set (Portico reloads the pair within a minute)"
