#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Move the pins of vmtest/sources.lock to the newest versions in Debian's
# index (the current target's kernel source to the newest linux-source),
# printing each change; then commit the lock (and rebase the series onto
# a new base: series/README).
#
# usage: vmtest/update-lock.sh

# shellcheck source-path=SCRIPTDIR
set -eu
VMTEST_DIR=$(dirname "$(realpath "$0")")
# shellcheck source=lib/common.sh
. "$VMTEST_DIR/lib/common.sh"
# shellcheck source=lib/packages.sh
. "$VMTEST_DIR/lib/packages.sh"
# shellcheck source=lib/distro.sh
. "$VMTEST_DIR/lib/distro.sh"

[ $# -eq 0 ] || { sed -n '3,8p' "$0" | cut -c3- >&2; exit 2; }
VMTEST_CACHE=${VMTEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pp-bench-vmtest}
VMTEST_LOGS=$VMTEST_CACHE/logs
mkdir -p "$VMTEST_LOGS"
update_lock
cat "$SOURCES_LOCK"
