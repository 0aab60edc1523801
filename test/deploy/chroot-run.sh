#!/bin/sh
# Runs a command in the image's root filesystem as a pod would: in a private mount namespace (unshare -m), root
# read-only, /tmp an empty tmpfs (the emptyDir), DEMO read-only on /demo, as the user portico (10001).
# Usage: unshare --mount --propagation private sh chroot-run.sh ROOT DEMO COMMAND...
set -eu
R=$1; DEMO=$2; shift 2
mount --bind "$R" "$R"
mount -t tmpfs -o size=64m,mode=1777 tmpfs "$R/tmp"
mount -t proc proc "$R/proc"
mount --bind /dev "$R/dev"
mount --bind "$DEMO" "$R/demo"
mount -o remount,bind,ro "$R/demo"
mount -o remount,bind,ro "$R"
exec env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/tmp NODE_ENV=production MALLOC_TRIM_THRESHOLD_=131072 chroot --userspec=10001:10001 "$R" "$@"
