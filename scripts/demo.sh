#!/usr/bin/env bash
# Sets up everything and runs the local demo: three backends and Portico on examples/, until Ctrl-C or `kill PID`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
WORK=$(mktemp -d)
node dist/test/support/demo-backends.js &
BACKENDS=$!
trap 'kill $BACKENDS 2>/dev/null || true; rm -rf "$WORK"' EXIT
cat <<TXT

Portico is starting on http://127.0.0.1:8080 (health on :10254). Try, in another terminal:

  curl -H 'Host: shop.example.com' http://127.0.0.1:8080/          # -> web
  curl -H 'Host: shop.example.com' http://127.0.0.1:8080/api/items # -> api (Prefix /api)
  curl -H 'Host: shop.example.com' http://127.0.0.1:8080/apix      # -> web (/api is element-wise, not a string prefix)
  curl -H 'Host: eu.admin.example.com' http://127.0.0.1:8080/      # -> admin (*.admin.example.com, one label)
  curl -H 'Host: a.b.admin.example.com' http://127.0.0.1:8080/     # -> 404 (a wildcard matches exactly one label)
  curl http://127.0.0.1:10254/healthz                              # -> ok
  npx portico render --manifests examples                          # the nginx.conf it runs

Edit examples/demo.yaml while it runs: changes apply within a second. Ctrl-C (or `kill` of this script) stops everything.

TXT
node bin/portico.js --manifests examples --http-port 8080 --https-port 8443 --healthz-port 10254 \
  --status-port 10246 --work-dir "$WORK" &
PORTICO=$!
# The signal a user sends this script (Ctrl-C, `kill PID`, a closed terminal) reaches Portico, which stops nginx and
# exits; only then does the script end (the EXIT trap stops the backends). Without this, `kill PID` would end the shell
# alone and leave Portico and its nginx running, holding the ports.
trap 'kill -TERM "$PORTICO" 2>/dev/null || true' INT TERM HUP
wait "$PORTICO" || true
# A trapped signal ends `wait` early: wait again until Portico has stopped; bash keeps its status for a last `wait`.
while kill -0 "$PORTICO" 2>/dev/null; do wait "$PORTICO" || true; done
status=0
wait "$PORTICO" || status=$?
exit "$status"
