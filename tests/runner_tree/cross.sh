#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One target's selftest build does not leak into another's (no VM, no
# kernel) in one tree with kselftest's Makefile and lib.mk, whose rules
# know no compiler: a shared build directory would install the x86
# binary for arm64. The cross compiler: the host's gcc, marked AArch64.

# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$(realpath "$0")")/../lib.sh"

work=$(mktemp -d "$OUT/cross.XXXXXX")
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
tree=$work/tree
sel=$tree/tools/testing/selftests
kselftest_tree "$tree" cross || exit
mkdir -p "$sel/hello" "$work/bin"
printf 'int main(void) { return 0; }\n' >"$sel/hello/hello.c"
printf 'TEST_GEN_PROGS := hello\ninclude ../lib.mk\n' >"$sel/hello/Makefile"

standin "$work/bin/aarch64-linux-gnu-gcc" <<'STANDIN'
# The host's gcc, its output's e_machine made EM_AARCH64 (183).
gcc "$@" || exit
out=a.out prev=
for a; do
	[ "$prev" = -o ] && out=$a
	prev=$a
done
[ ! -f "$out" ] || printf '\267\000' |
	dd of="$out" bs=1 seek=18 conv=notrunc status=none
STANDIN

# The runner's selftest build of each target in a job of its own
stage x86 selftests PATH="$work/bin:$PATH" FAKE_TARGET=current \
	FAKE_TREE="$tree" FAKE_TARGETS=hello
check "cross: the current target's selftests build" grep -q '^rc=0 ' "$work/x86.log"
# machine FILE: the ELF machine readelf names (file(1) is not on a
# minimal root; binutils comes with the compiler)
machine() { readelf -h "$1" 2>/dev/null | sed -n 's/^ *Machine: *//p'; }
check "cross: its binary is x86-64" \
	test "$(machine "$work/x86/install/hello/hello")" = "Advanced Micro Devices X86-64"
stage arm64 selftests PATH="$work/bin:$PATH" FAKE_TARGET=arm64 \
	FAKE_TREE="$tree" FAKE_TARGETS=hello
check "cross: then arm64's, in the same tree, build" grep -q '^rc=0 ' "$work/arm64.log"
check "cross: arm64's installed binary is aarch64, not the x86 one ($(machine "$work/arm64/install/hello/hello"))" \
	test "$(machine "$work/arm64/install/hello/hello")" = AArch64
check "cross: nothing was built in the tree itself" test ! -e "$sel/hello/hello"

tests_done cross
