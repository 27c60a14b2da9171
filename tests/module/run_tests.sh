#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench_page_pool.ko builds at W=1 without a warning against Debian's
# 6.12 headers (the default-KDIR path) and against the kernel tree the
# runner builds (the KDIR=$(pwd) path), with no version checks.

# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$(realpath "$0")")/../lib.sh"

src=$REPO/tools/testing/selftests/net/bench/page_pool

# build_at_w1 NAME KDIR: a clean copy of the module dir built at W=1.
build_at_w1()
{
	local name=$1 kdir=$2 dir log

	dir=$(mktemp -d)
	log=$OUT/module-$name.log
	cp -r "$src/." "$dir/"
	if ! make -C "$dir" KDIR="$kdir" W=1 >"$log" 2>&1; then
		not_ok "W=1 build against $name" "see $log"
		tail -n 20 "$log" | sed 's/^/#   /'
	elif grep -qiE 'warning:|error:' "$log"; then
		not_ok "W=1 build against $name has no warning" "see $log"
		grep -iE 'warning:|error:' "$log" | head -n 10 | sed 's/^/#   /'
	elif [ ! -f "$dir/bench_page_pool.ko" ]; then
		not_ok "W=1 build against $name" "no bench_page_pool.ko"
	else
		ok "W=1 build against $name, no warning"
	fi
	rm -rf "$dir"
}

read -r _ distro_kdir < <(prepared distro)
read -r _ current_kdir < <(prepared current)
if [ -n "$distro_kdir" ]; then
	build_at_w1 "distro-$(basename "$(dirname "$distro_kdir")")" "$distro_kdir"
else
	not_ok "distro kernel headers prepared" "see $OUT/prepare.log"
fi
if [ -n "$current_kdir" ]; then
	build_at_w1 "tree-$(basename "$current_kdir")" "$current_kdir"
else
	not_ok "current kernel tree prepared and built" "see $OUT/prepare.log"
fi
