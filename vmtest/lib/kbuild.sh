# SPDX-License-Identifier: GPL-2.0
# Build a minimal kernel for the target's architecture (lib/arch.sh) from
# the prepared tree, as NIPA and virtme-ng do: tinyconfig, then the VM
# essentials (shared, then the architecture's) and the selftests' own
# 'config' fragments merged with scripts/kconfig/merge_config.sh.
# shellcheck shell=bash disable=SC2034 # sets globals for vmtest.sh

# The fragments for FLAVOR (normal, debug or distro, each perhaps with
# -iommu), one path a line.
config_fragments()
{
	local flavor=$1 t

	echo "$VMTEST_DIR/config/vm.config"
	echo "$VMTEST_DIR/config/$KARCH.config"
	case ${flavor%-iommu} in
	debug | distro) echo "$VMTEST_DIR/config/${flavor%-iommu}.config" ;;
	esac
	[ "$flavor" = "${flavor%-iommu}" ] || echo "$VMTEST_DIR/config/iommu.config"
	for t in $SERIES_TARGETS; do
		[ -f "$KTREE/tools/testing/selftests/$t/config" ] &&
			echo "$KTREE/tools/testing/selftests/$t/config"
	done
}

# make_config TREE CFG MAKE-VARS FRAGMENT...: a step, so it runs in a
# shell of its own and knows only its arguments. MAKE-VARS: ARCH= and
# CROSS_COMPILE= words (kmake_args).
make_config()
{
	local tree=$1 cfg=$2
	local -a kmake

	read -ra kmake <<<"$3"
	shift 3
	make -C "$tree" O="$cfg" "${kmake[@]}" tinyconfig &&
	"$tree/scripts/kconfig/merge_config.sh" -m -O "$cfg" \
		"$cfg/.config" "$@" &&
	make -C "$tree" O="$cfg" "${kmake[@]}" olddefconfig
}

# Options a fragment asks for that the final .config does not have.
missing_options()
{
	local config=$1 line

	shift
	cat "$@" | while read -r line; do
		case $line in
		CONFIG_*=n) grep -q "^${line%=n}=" "$config" && echo "$line" ;;
		CONFIG_*=*) grep -qx "$line" "$config" || undefined "${line%%=*}" ||
			echo "$line" ;;
		esac
	done
}

# undefined CONFIG_SYM: whether the tree's Kconfig lacks SYM; a fragment
# may name both an old and a new symbol (7.3 renamed PROC_SYSCTL to
# SYSCTL), and the one a tree lacks is not missing. Sets nothing.
undefined()
{
	! grep -rqsx --include='Kconfig*' -E "(menu)?config ${1#CONFIG_}" "$KTREE"
}

KBUILD_LOCK=${VMTEST_KBUILD_LOCK:-/run/lock/vmtest-kbuild.lock}

# The versions of the tools whose output a .config records or a build
# depends on (CONFIG_GCC_VERSION, CONFIG_LD_VERSION, CONFIG_PAHOLE_VERSION).
build_tools()
{
	"${CROSS_COMPILE}gcc" --version | head -n 1
	"${CROSS_COMPILE}ld" --version | head -n 1
	pahole --version
}

# build_kernel FLAVOR: sets KIMAGE. Cached: a build whose tree identity,
# final .config, tools and the series' kernel files are unchanged is not
# run again at all.
build_kernel()
{
	local flavor=$1 out cfg key missing
	local -a frags kmake

	out=$VMTEST_CACHE/build/$(basename "$KTREE")-$flavor
	cfg=$out-config
	mapfile -t frags < <(config_fragments "$flavor")
	mkdir -p "$out" "$cfg"
	# The .config follows from the tree, the fragments and the tools.
	key=$({ cat "$KTREE.id" "${frags[@]}"; build_tools; } | hash_of)
	if [ "$(cat "$cfg/.vmtest-key" 2>/dev/null)" != "$key" ]; then
		step "configuring $KTREE_VERSION ($flavor)" \
			"$VMTEST_LOGS/config-$KARCH-$flavor.log" \
			make_config "$KTREE" "$cfg" "$(kmake_args | xargs)" \
			"${frags[@]}" ||
			die "kernel configuration failed"
		echo "$key" >"$cfg/.vmtest-key"
	fi
	missing=$(missing_options "$cfg/.config" "${frags[@]}")
	# A kernel without an option a fragment asks for would fail or skip
	# tests for a reason nobody sees: refuse it.
	[ -z "$missing" ] ||
		die "not in the final .config (missing dependencies?): $(echo "$missing" | tr '\n' ' ')"

	# The tree is keyed on its source's identity; what the series puts
	# into the kernel proper is keyed here.
	key=$({ cat "$KTREE.id" "$cfg/.config"; build_tools
		python3 "$VMTEST_DIR/lib/series_files.py" --series "$VMTEST_SERIES" \
			--kernel-digest; } | hash_of)
	KIMAGE=$out/$KIMAGE_PATH
	KBUILD_OUT=$out
	if [ -f "$KIMAGE" ] && [ "$(cat "$out/.vmtest-key" 2>/dev/null)" = "$key" ]; then
		msg "kernel $KTREE_VERSION ($flavor) is up to date ($out)"
		return 0
	fi
	cmp -s "$cfg/.config" "$out/.config" || cp "$cfg/.config" "$out/.config"
	rm -f "$out/.vmtest-key"
	mapfile -t kmake < <(kmake_args)
	# One kernel build at a time on a machine: each takes every core.
	step "building kernel $KTREE_VERSION ($KARCH, $flavor)" \
		"$VMTEST_LOGS/build-$KARCH-$flavor.log" \
		flock "$KBUILD_LOCK" \
		make -C "$KTREE" O="$out" "${kmake[@]}" -j"$(nproc)" \
		"$KIMAGE_TARGET" modules ||
		fail "kernel build failed"
	echo "$key" >"$out/.vmtest-key"
}

# module_patches KDIR: the runner-only patches the module needs to build
# against KDIR: a kernel before 6.15 (no faux_device_create exported) has
# no faux device, and the *_dma tests get a platform device instead.
module_patches()
{
	grep -qw faux_device_create "$1/Module.symvers" 2>/dev/null ||
		echo "$VMTEST_DIR/guest/platform-device.patch"
}

# build_module_copy INSTALL KDIR PATCH...: the module of INSTALL replaced
# (or added) by one built from the run's own copy of net/bench with the
# runner-only PATCHes (--dma iommu's device, a platform device for
# kernels before 6.15, --attribute's marks), never posted.
build_module_copy()
{
	local install=$1 kdir=$2 src=$JOB/module-copy p

	shift 2
	rm -rf "$src" &&
	cp -r "$KTREE/tools/testing/selftests/net/bench" "$src" || return 1
	for p in "$@"; do
		apply_patch "$src" "$p" || return 1
	done
	make -C "$kdir" O="$kdir" M="$src/page_pool" modules &&
	mkdir -p "$install/net/bench/page_pool" &&
	cp "$src/page_pool/bench_page_pool.ko" "$install/net/bench/page_pool/"
}

# build_selftests INSTALL BUILD KDIR [MAKE-ARG...]: the series' selftests
# built for the target's architecture in BUILD (O=, the target's own:
# nothing built for one target is reused by another, as lib.mk's rules
# know no compiler) and installed in INSTALL, the module against KDIR
# (kbuild rebuilds it in the tree when the kernel changes). A step.
build_selftests()
{
	local install=$1 build=$2 kdir=$3
	local -a kmake

	shift 3
	mapfile -t kmake < <(kmake_args)
	make -C "$KTREE/tools/testing/selftests" "${kmake[@]}" O="$build" \
		TARGETS="$SERIES_TARGETS" KDIR="$kdir" INSTALL_PATH="$install" \
		"$@" install
}
