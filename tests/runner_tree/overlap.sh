#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two checkouts with different series files, one cache (no VM, no
# kernel): their runs overlap on one farm, and each installs its own
# series' selftest (without the farm's lock the second would patch the
# farm under the first, which would install the second's program).

# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$(realpath "$0")")/../lib.sh"

work=$(mktemp -d "$OUT/overlap.XXXXXX")
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
# The source: kselftest's Makefiles and a top Makefile the runner asks
# for its version.
tree=$work/src
kselftest_tree "$tree" overlap || exit
# hello PRINTS: a program that prints PRINTS.
hello()
{
	printf '#include <stdio.h>\nint main(void) { return puts("%s") < 0; }\n' "$1"
}

printf 'kernelversion:\n\t@echo 0.0.0\n' >"$tree/Makefile"
mkdir -p "$tree/tools/testing/selftests/hello"
hello src >"$tree/tools/testing/selftests/hello/hello.c"
printf 'TEST_GEN_PROGS := hello\ninclude ../lib.mk\n' \
	>"$tree/tools/testing/selftests/hello/Makefile"
# a git tree of its own (the farm takes a git tree's files)
git -C "$tree" init -q && git -C "$tree" add -A &&
	git -C "$tree" -c user.name=t -c user.email=t@t commit -qm src

# checkout NAME [keep]: a series of one patch making the source's program
# print NAME, or with "keep" leaving it as it is; the patch changes the
# program's Makefile, which makes it one of the series' targets.
checkout()
{
	local co=$work/$1 g=$work/$1.git

	mkdir -p "$co/series/virtio" "$co/series/net-next"
	git clone -q "$tree" "$g" || return
	echo "# $1" >>"$g/tools/testing/selftests/hello/Makefile"
	[ "${2:-}" = keep ] ||
		hello "$1" >"$g/tools/testing/selftests/hello/hello.c"
	git -C "$g" -c user.name=t -c user.email=t@t commit -qam "$1" &&
		git -C "$g" format-patch -q -o "$co/series/virtio" HEAD~
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

# patched GLOB: wait until a farm matching GLOB is patched.
patched()
{
	for _ in $(seq 100); do
		compgen -G "$work/cache/trees/$1.series" >/dev/null && return
		sleep 0.1
	done
}

checkout first && checkout second
run first FAKE_HOLD=4 &
first=$!
patched '*'		# the second starts during the first's hold
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

# Another target has a farm of its own (its module is built against
# another kernel): it does not wait for current's.
rm "$work/cache/trees/"*.series	# the first patches the farm anew
run first FAKE_HOLD=4 &
first=$!
patched '*'
run second FAKE_TARGET=distro
wait "$first"
expect_no_grep "overlap: a distro run does not wait for a current run" \
	"$work/second.log" 'waiting for'
check "overlap: the distro run has a farm of its own" \
	compgen -G "$work/cache/trees/src-*-distro"
check "overlap: and installed its own program" \
	test "$("$work/job-second/install/hello/hello" 2>&1)" = second

# A series that leaves the program as the source has it, after one that
# changed it: the farm's copy goes back to the source's, with a new
# mtime, and make rebuilds the program from it.
checkout third keep
run third
check "overlap: a series that does not change a file gets the source's ($("$work/job-third/install/hello/hello" 2>&1))" \
	test "$("$work/job-third/install/hello/hello" 2>&1)" = src

tests_done overlap
