# SPDX-License-Identifier: GPL-2.0
# The patches a before/after command takes: a patch, an mbox or a
# directory of format-patch files (ab.sh, ptr_ring.sh).
# shellcheck shell=bash

# patch_input PATCH: the patch, or a directory's format-patch files
patch_input()
{
	if [ -d "$1" ]; then cat "$1"/[0-9]*.patch; else cat "$1"; fi
}

# patch_paths PATCH...: the paths the patches touch
patch_paths()
{
	local p

	for p in "$@"; do patch_input "$p"; done |
		sed -n 's|^+++ b/\([^	 ]*\).*|\1|p' | sort -u
}
