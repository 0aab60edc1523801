#!/usr/bin/env bash
# Builds the image's root filesystem without a container engine: mmdebstrap (minbase, as debian:bookworm-slim) from
# Debian's mirrors with bookworm-security, then image/install.sh inside it (as the Dockerfile runs it), then Node.js
# and the staged app. Root only. `scripts/image-rootfs.sh OUT [NODE_BINARY]`; prints the time and size.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:?usage: image-rootfs.sh OUT [NODE_BINARY]}
NODE_BIN=${2:-$(command -v node)}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org}
start=$(date +%s)
mmdebstrap --variant=minbase --mode=root --quiet \
  --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
  --customize-hook='mkdir -p "$1/tmp/image"' \
  --customize-hook='copy-in image/install.sh image/packages.txt /tmp/image' \
  --chrooted-customize-hook='sh /tmp/image/install.sh && rm -rf /tmp/image' \
  bookworm "$OUT" \
  "deb $MIRROR/debian bookworm main" "deb $MIRROR/debian bookworm-updates main" "deb $MIRROR/debian-security bookworm-security main"
install -m 0755 "$NODE_BIN" "$OUT/usr/local/bin/node"
bash scripts/image-app.sh "$OUT/app" >/dev/null
echo "image-rootfs: $OUT built in $(( $(date +%s) - start )) s, $(du -sh "$OUT" | cut -f1), node $("$NODE_BIN" --version)"
