#!/usr/bin/env bash
# Sets up a fresh Debian machine with Node.js 20+: nginx + Lua packages and mmdebstrap (the image test) where
# missing, npm ci, build.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(nginx libnginx-mod-http-lua libnginx-mod-http-ndk libnginx-mod-http-headers-more-filter lua-resty-core lua-resty-lrucache lua-cjson libnginx-mod-stream libnginx-mod-stream-js openssl curl mmdebstrap)
# `setup.sh --test` (scripts/test.sh): Debian's Chromium too, for the dashboard test (playwright-core drives it; it
# downloads no browser of its own). The demo does not need it.
# lua-check lints lua/ (.luacheckrc) in scripts/test.sh.
if [ "${1:-}" = "--test" ]; then PACKAGES+=(chromium lua-check); fi
# `setup.sh --bench`: what bench/ drives besides nginx: wrk (load), valgrind (--callgrind), strace (--syscalls).
if [ "${1:-}" = "--bench" ]; then PACKAGES+=(wrk valgrind strace); fi
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  # nginx from the security suite carries the rewrite-module CVE backports (docs/nginx.md).
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# The Debian nginx service must not hold ports 80/443 or run beside us; Portico runs its own nginx.
if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet nginx 2>/dev/null; then
  systemctl stop nginx || true
fi
echo "setup: $(/usr/sbin/nginx -v 2>&1) (package $(dpkg-query -W -f='${Version}' nginx))"
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
npx tsc -p tsconfig.json
echo "setup: built"
