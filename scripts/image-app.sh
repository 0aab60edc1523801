#!/usr/bin/env bash
# Stages Portico's built output and production dependencies only into DEST (the image's /app), with the git commit
# in DEST/build-info.json. Needs a built dist/ (npm run build). Used by the Dockerfile and scripts/image-rootfs.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
DEST=${1:?usage: image-app.sh DEST}
mkdir -p "$DEST"
cp -r bin lua njs static package.json package-lock.json "$DEST/"
mkdir -p "$DEST/dist" && cp -r dist/src "$DEST/dist/"
find "$DEST/dist" -name '*.map' -delete
commit=${GIT_COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}
printf '{"commit":"%s"}\n' "$commit" > "$DEST/build-info.json"
(cd "$DEST" && npm ci --omit=dev --prefer-offline --no-audit --no-fund --loglevel=error --ignore-scripts)
rm -f "$DEST/package-lock.json"
echo "image-app: $(du -sh "$DEST" | cut -f1) in $DEST (commit $commit)"
