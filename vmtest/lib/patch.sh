# SPDX-License-Identifier: GPL-2.0
# The one way the tooling applies a patch file to a directory (the
# series to a tree, the runner-only patches to the module's copy, the
# series checked by series.sh): patch -p1 with no fuzz, so that a patch
# whose context moved fails instead of landing where patch guesses;
# never reversed, no backup files. patch replaces a file it changes by a
# new one: a tree of hard links keeps its sources.
# shellcheck shell=bash

# apply_patch DIR PATCH: PATCH applied to DIR; patch's complaint on stdout
apply_patch()
{
	patch -p1 -N -F0 -s -f --no-backup-if-mismatch -d "$1" <"$2"
}
