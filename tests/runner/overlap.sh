#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two checkouts with different series files, one cache (no VM, no
# kernel): their runs overlap on the one farm of the same source, and
# each installs the selftest its own series gives. The second waits for
# the first to have its selftests, says so, then patches the farm anew;
# without the farm's lock it would patch the farm under the first run,
# which would then build and install the second's program.

# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$(realpath "$0")")/../lib.sh"

work=$(mktemp -d "$OUT/overlap.XXXXXX")
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
# The source: kselftest's Makefiles and a top Makefile the runner asks
# for its version.
tree=$work/src
if ! kselftest_tree "$tree"; then
	not_ok "overlap: a Debian kernel source to take lib.mk from" \
		"none in $VMTEST_CACHE/src"
	tests_done overlap
	exit
fi
printf 'kernelversion:\n\t@echo 0.0.0\n' >"$tree/Makefile"
# a git tree of its own (the farm takes a git tree's files)
git -C "$tree" init -q && git -C "$tree" add -A &&
	git -C "$tree" -c user.name=t -c user.email=t@t commit -qm src

# checkout NAME: a series of one patch adding a program that prints NAME.
checkout()
{
	local co=$work/$1 g=$work/$1.git

	mkdir -p "$co/series/virtio" "$co/series/net-next" "$g/tools/testing/selftests/hello"
	git -C "$g" init -q
	printf 'int main(void) { return puts("%s") < 0; }\n' "$1" |
		sed '1i #include <stdio.h>' >"$g/tools/testing/selftests/hello/hello.c"
	printf 'TEST_GEN_PROGS := hello\ninclude ../lib.mk\n' \
		>"$g/tools/testing/selftests/hello/Makefile"
	git -C "$g" add -A &&
		git -C "$g" -c user.name=t -c user.email=t@t commit -qm hello &&
		git -C "$g" format-patch -q --root -o "$co/series/virtio" HEAD
}

# run NAME [VAR=VALUE...]: NAME's checkout prepared in the shared cache.
run()
{
	local name=$1

	shift
	mkdir -p "$work/job-$name"
	env "$@" FAKE_SRC="$tree" FAKE_SERIES="$work/$name" FAKE_CACHE="$work/cache" \
		"$TESTS_DIR/runner/stage.sh" tree "$work/job-$name" >"$work/$name.log" 2>&1
}

checkout first && checkout second
run first FAKE_HOLD=4 &
first=$!
# Once the first has patched the farm, during its hold
for _ in $(seq 100); do
	compgen -G "$work/cache/trees/*.series" >/dev/null && break
	sleep 0.1
done
run second
wait "$first"
for name in first second; do
	check "overlap: the $name run passes" grep -q '^rc=0 ' "$work/$name.log"
	check "overlap: the $name run installed its own program ($("$work/job-$name/install/hello/hello" 2>&1))" \
		test "$("$work/job-$name/install/hello/hello" 2>&1)" = "$name"
done
expect_grep "overlap: the second run waited for the first, saying so" \
	"$work/second.log" 'waiting for another run using .*/trees/src-'
expect_no_grep "overlap: the first did not wait" "$work/first.log" 'waiting for'

tests_done overlap
