#!/bin/sh
# Makes a Debian bookworm root (debian:bookworm-slim, or mmdebstrap's minbase) into Portico's image, as root inside
# it: the packages of packages.txt from bookworm and bookworm-security, the user portico (10001) and nothing else
# writable. Run by the Dockerfile and by scripts/image-rootfs.sh, so the tested root filesystem is the image's.
set -eu
here=$(dirname "$0")
MIN_NGINX=1.22.1-9+deb12u11
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2046
apt-get install -y -qq --no-install-recommends $(grep -v '^#' "$here/packages.txt") >/dev/null
have=$(dpkg-query -W -f='${Version}' nginx)
if ! dpkg --compare-versions "$have" ge "$MIN_NGINX"; then
  echo "install.sh: nginx $have is older than $MIN_NGINX (is bookworm-security in the sources?)" >&2
  exit 1
fi
# Debian's nginx service files and default site are not used: Portico writes its own nginx.conf in --work-dir.
rm -rf /etc/nginx/sites-enabled /var/log/nginx/* /var/lib/apt/lists/* /var/cache/apt/*.bin
groupadd --gid 10001 portico
useradd --uid 10001 --gid 10001 --home-dir /nonexistent --no-create-home --no-log-init --shell /usr/sbin/nologin portico
mkdir -p /app
echo "install.sh: nginx $have, user portico (10001)"
