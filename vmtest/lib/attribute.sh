# SPDX-License-Identifier: GPL-2.0
# vmtest.sh --attribute: where a deterministic run's instructions go
# (vmtest/README.md). The plugin is built against the header of Debian's
# source of the installed QEMU, fetched with the runner's private apt; the
# guest records the kernel's symbols and the module's.
# shellcheck shell=bash disable=SC2034 # sets INSN_PLUGIN for vmtest.sh

qemu_src_opts()
{
	private_apt_opts "$VMTEST_CACHE/qemu-src"
}

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
	mkdir -p "$d/$ver" || die "cannot make $d"
	private_apt_update qemu_src_opts "$d" src "" "source packages" deb-src >&2
	mapfile -t opts < <(qemu_src_opts)
	(cd "$d" && step "fetching Debian's qemu $ver source" \
		"$VMTEST_LOGS/qemu-src.log" \
		apt-get "${opts[@]}" source --download-only "qemu=$ver" >&2) ||
		die "cannot fetch Debian's qemu $ver source"
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
