# SPDX-License-Identifier: GPL-2.0
# vmtest.sh --attribute: where a deterministic run's instructions go
# (vmtest/README.md). The plugin is built against the header of Debian's
# source of the installed QEMU, fetched with a private deb-src list; the
# guest records the kernel's symbols and the module's.
# shellcheck shell=bash disable=SC2034 # sets INSN_PLUGIN for vmtest.sh

# qemu_plugin_header: the path of qemu-plugin.h from Debian's source of
# the installed qemu-system-x86 (cached by version)
qemu_plugin_header()
{
	local ver d h up
	local -a opts

	ver=$(dpkg-query -W -f '${source:Version}' qemu-system-x86 2>/dev/null) ||
		die "--attribute: qemu-system-x86 is not installed"
	d=$VMTEST_CACHE/qemu-src
	h=$d/$ver/qemu-plugin.h
	[ -f "$h" ] && { echo "$h"; return 0; }
	mkdir -p "$d/etc" "$d/lists/partial" "$d/cache/archives/partial" "$d/$ver" ||
		die "cannot make $d"
	sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/*.sources \
		>"$d/etc/src.sources" 2>/dev/null
	[ -s "$d/etc/src.sources" ] || die "--attribute: no Debian source in /etc/apt/sources.list.d"
	mapfile -t opts < <(private_apt_opts "$d")
	# shellcheck disable=SC2016 # expanded by sh -c
	(cd "$d" && step "fetching Debian's qemu $ver source" \
		"$VMTEST_LOGS/qemu-src.log" \
		sh -c 'apt-get "$@" update && apt-get "$@" source --download-only "qemu=$0"' \
		"$ver" "${opts[@]}" >&2) || die "cannot fetch Debian's qemu $ver source"
	up=${ver#*:}
	tar -xaf "$d/qemu_${up%-*}".orig.tar.* -C "$d/$ver" --wildcards \
		--strip-components=3 '*/include/qemu/qemu-plugin.h' ||
		die "no qemu-plugin.h in Debian's qemu $ver source"
	echo "$h"
}

# ensure_insn_plugin: INSN_PLUGIN, the plugin built (cached by its source
# and header)
ensure_insn_plugin()
{
	local h src=$VMTEST_DIR/plugin/insn_count.c key

	h=$(qemu_plugin_header) || exit 2
	key=$(cat "$src" "$h" | hash_of)
	INSN_PLUGIN=$VMTEST_CACHE/plugin/insn_count-$key.so
	[ -f "$INSN_PLUGIN" ] && return 0
	mkdir -p "$VMTEST_CACHE/plugin" || die "cannot make $VMTEST_CACHE/plugin"
	step "building the QEMU plugin $(basename "$src")" \
		"$VMTEST_LOGS/plugin.log" \
		cc -O2 -Wall -Wextra -Wno-unused-parameter -Werror -shared -fPIC \
		-I"$(dirname "$h")" -o "$INSN_PLUGIN.tmp" "$src" ||
		die "the QEMU plugin does not build"
	mv "$INSN_PLUGIN.tmp" "$INSN_PLUGIN"
}

# attribute_guest JOB: the guest's part, before the tests: the kernel's
# symbols now (its text does not move), the module's once it is loaded
# (a poll of sysfs, cheap next to the benchmark; kallsyms has a module's
# symbols before sysfs has its sections)
attribute_guest()
{
	local job
	job=$(printf '%q' "$1")
	cat <<-EOF
	echo 0 >/proc/sys/kernel/kptr_restrict
	cat /proc/kallsyms >$job/kallsyms
	( s=/sys/module/bench_page_pool/sections
	  until [ -r \$s/.text ]; do sleep 0.2; done
	  grep '\[bench_page_pool\]\$' /proc/kallsyms >$job/module.kallsyms ) &
	EOF
}
