#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench_page_pool.ko builds at W=1 without a warning against Debian's 6.12
# headers (KDIR=/lib/modules/..., with module_patches' runner-only
# patches: 6.12 has no faux device) and the runner's kernel tree; the
# selftests build it as NIPA does (O=, no KDIR), an unbuilt tree builds
# them without it; the distro profile's .config has its fragment's options.

# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$(realpath "$0")")/../lib.sh"
# shellcheck source-path=SCRIPTDIR source=../../vmtest/lib/kbuild.sh
. "$REPO/vmtest/lib/kbuild.sh"
# What the runner installs before it builds a kernel (packages.sh's
# host_tools): these checks configure and build before any runner call
# shellcheck source-path=SCRIPTDIR source=../../vmtest/lib/packages.sh
mapfile -t tools < <(. "$REPO/vmtest/lib/packages.sh" && host_tools)
need_tools "${tools[@]}"

src=$REPO/tools/testing/selftests/net/bench/page_pool

# build_at_w1 NAME KDIR [PATCH]: the module's copy + runner-only PATCH, at W=1.
build_at_w1()
{
	local name=$1 kdir=$2 dir log

	dir=$(mktemp -d)
	log=$OUT/module-$name.log
	mkdir "$dir/page_pool"
	cp -r "$src/." "$dir/page_pool/"
	[ -z "${3:-}" ] || apply_patch "$dir" "$3" >"$log" 2>&1 ||
		{ not_ok "$name: ${3##*/} applies" "see $log"; rm -rf "$dir"; return; }
	dir=$dir/page_pool
	if ! make -C "$dir" KDIR="$kdir" W=1 >"$log" 2>&1; then
		not_ok "W=1 build against $name" "see $log" "$(tail -n 20 "$log")"
	elif grep -qiE 'warning:|error:' "$log"; then
		not_ok "W=1 build against $name has no warning" "see $log" \
			"$(grep -iE 'warning:|error:' "$log" | head -n 10)"
	elif [ ! -f "$dir/bench_page_pool.ko" ]; then
		not_ok "W=1 build against $name" "no bench_page_pool.ko"
	else
		ok "W=1 build against $name, no warning"
	fi
	rm -rf "$(dirname "$dir")"
}

# farm KSRC DIR: DIR mirrors KSRC (link_tree) with a copy of this
# repository's tools/testing/selftests/net/bench in place of KSRC's.
farm()
{
	local bench=$2/tools/testing/selftests/net/bench

	link_tree "$1" "$2" "${bench#"$2"/}" && rm -rf "$bench" &&
		cp -r "$src/.." "$bench"
}

# sel_make TMP [MAKE-ARGS...]: make TARGETS=net/bench in TMP/tree's selftests
sel_make()
{
	make -C "$1/tree/tools/testing/selftests" TARGETS=net/bench "${@:2}"
}

# NIPA's case: the selftests with a kernel's O= and no KDIR build the module
# for that kernel; in an unbuilt tree they build, warn, and leave it out.
nipa_build()
{
	local ksrc=$1 kdir=$2 tmp ko log rel

	tmp=$(mktemp -d)
	# O=$tmp/obj: KDIR's entries as links, KDIR itself never written
	if ! farm "$ksrc" "$tmp/tree" || ! link_tree "$kdir" "$tmp/obj"; then
		not_ok "NIPA-style trees prepared"
		rm -rf "$tmp"
		return
	fi
	ko=$tmp/tree/tools/testing/selftests/net/bench/page_pool/bench_page_pool.ko
	rel=$(cat "$kdir/include/config/kernel.release")
	expect_rc "make TARGETS=net/bench O=BUILD, no KDIR: exit 0" 0 \
		"$OUT/module-nipa.log" sel_make "$tmp" O="$tmp/obj"
	check "... a module for $rel" \
		test "$(modinfo -F vermagic "$ko" 2>&1 | cut -d' ' -f1)" = "$rel"
	# run_tests from O=: from BUILD/kselftest with its helper beside it
	# (TEST_INCLUDES); a module for another kernel is a skip, never loaded
	log=$OUT/module-nipa-run.log
	if [ "$(uname -r)" = "$rel" ]; then
		not_ok "make O=BUILD run_tests: the host runs another kernel than $rel"
	elif expect_rc "make TARGETS=net/bench O=BUILD run_tests: KTAP with its helper" 0 \
		"$log" sel_make "$tmp" O="$tmp/obj" run_tests; then
		expect_grep "... a SKIP: the module is for another kernel" "$log" \
			'^# 1\.\.0 # SKIP bench_page_pool\.ko is built for '
		expect_no_grep "... run with its helper" "$log" 'No such file|command not found'
	fi
	rm -rf "$tmp/tree/tools/testing/selftests/net/bench"
	cp -r "$src/.." "$tmp/tree/tools/testing/selftests/net/bench"
	log=$OUT/module-unbuilt.log
	expect_rc "make TARGETS=net/bench in an unbuilt tree: exit 0" 0 "$log" \
		sel_make "$tmp"
	expect_grep "... warns that the module is skipped" "$log" \
		'Warning: missing .*Module.symvers.*bench_page_pool test will be skipped'
	check "... and builds none" test ! -e "$ko"
	rm -rf "$tmp"
}

# i386: the module against a tinyconfig tree prepared for modules, at W=1:
# no warning, no libgcc 64-bit division helper (x86 and arm link none)
build_32bit()
{
	local ksrc=$1 tmp log undef

	tmp=$(mktemp -d)
	log=$OUT/module-i386.log
	mkdir "$tmp/mod" && cp -r "$src/." "$tmp/mod/"
	if ! { make -C "$ksrc" O="$tmp/obj" ARCH=i386 tinyconfig &&
	       "$ksrc/scripts/config" --file "$tmp/obj/.config" -e NET -e MODULES \
		-e MODULE_UNLOAD -e PRINTK &&
	       make -C "$ksrc" O="$tmp/obj" ARCH=i386 olddefconfig &&
	       make -C "$ksrc" O="$tmp/obj" ARCH=i386 -j"$(nproc)" modules_prepare &&
	       make -C "$tmp/obj" ARCH=i386 M="$tmp/mod" W=1 \
		KBUILD_MODPOST_WARN=1 modules; } >"$log" 2>&1; then
		not_ok "i386: the module compiles" "see $log" "$(tail -n 5 "$log")"
	elif grep -E 'warning:|error:' "$log" | grep -v modpost | grep -q .; then
		not_ok "i386: the module compiles at W=1 without a warning" \
			"$(grep -E 'warning:|error:' "$log" | head -n 5)"
	else
		undef=$(nm -u "$tmp/mod"/*.o | grep -oE '__(u?divdi3|u?moddi3|aeabi_u?ldivmod)' | sort -u)
		check "i386: no 64-bit division helper referenced${undef:+ ($undef)}" \
			test -z "$undef"
	fi
	rm -rf "$tmp"
}

# profile_config TREE: the distro profile's .config as the runner's
# make_config makes it has every option distro.config names (the runner
# refuses a kernel otherwise); what differs from Debian's is in its header.
profile_config()
{
	local tree=$1 cfg missing f

	cfg=$(mktemp -d)
	f=$REPO/vmtest/config
	if ! make_config "$tree" "$cfg" ARCH=x86_64 "$f/vm.config" \
		"$f/x86_64.config" "$f/distro.config" \
		"$tree/tools/testing/selftests/net/bench/config" \
		>"$OUT/module-profile.log" 2>&1; then
		not_ok "the distro profile's .config is made" "see $OUT/module-profile.log"
		rm -rf "$cfg"
		return
	fi
	missing=$(grep '^CONFIG_' "$f/distro.config" | while read -r l; do
		grep -qx "$l" "$cfg/.config" || echo "$l"; done)
	check "the distro profile's .config has every option distro.config names ($(grep -c '^CONFIG_' "$f/distro.config"))" \
		test -z "$missing"
	echo "# differs from Debian's on purpose: $(grep -h '^CONFIG_PAGE_POOL_STATS=' "$cfg/.config")"
	rm -rf "$cfg"
}

read -r tree _ < <(prepared current tree)
if [ -n "$tree" ]; then
	profile_config "$tree"
	build_32bit "$(pinned_source)"
else
	not_ok "current tree prepared" "see $OUT/prepare.log"
fi

read -r _ distro_kdir < <(prepared distro)
read -r _ current_kdir < <(prepared current)
if [ -n "$distro_kdir" ]; then
	build_at_w1 "distro-$(basename "$(dirname "$distro_kdir")")" "$distro_kdir" \
		"$(VMTEST_DIR=$REPO/vmtest module_patches "$distro_kdir")"
else
	not_ok "distro kernel headers prepared" "see $OUT/prepare.log"
fi
if [ -n "$current_kdir" ]; then
	build_at_w1 "tree-$(basename "$current_kdir")" "$current_kdir"
	nipa_build "$(pinned_source)" "$current_kdir"
else
	not_ok "current kernel tree prepared and built" "see $OUT/prepare.log"
fi

tests_done module
