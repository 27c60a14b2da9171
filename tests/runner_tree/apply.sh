#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The current target's tree gets the series' committed patch files (no
# VM, no kernel), the source left as it is.

# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$(realpath "$0")")/../lib.sh"

work=$(mktemp -d "$OUT/apply.XXXXXX")
fake=$work/fake-linux
trap 'rm -rf "$work" "$VMTEST_CACHE/trees/${fake##*/}"*' EXIT

rec=$(runner_record current tree)
src=$(record_get src <<<"$rec")
tree=$(record_get tree <<<"$rec")
if [ -z "$tree" ] || [ ! -f "$tree.paths" ] || [ -z "$src" ]; then
	not_ok "the current target's tree has the series applied" \
		"tree '$tree', source '$src' (see $OUT/prepare.log)"
	exit 0
fi

# What the patches touch, as it is (inode, mtime, size, content).
state()
{
	local p

	while read -r p; do
		if [ -e "$1/$p" ]; then
			printf '%s %s\n' "$(stat -c '%i %Y %s' "$1/$p")" \
				"$(sha256sum <"$1/$p")"
		else
			echo "$p: none"
		fi
	done <"$tree.paths"
}

before=$(state "$src")
rm -f "$tree.series"
expect_rc "a forced re-apply" 0 "$work/apply.log" \
	"$VMTEST" -t current --stop-after tree
expect_grep "it applies the patches" "$work/apply.log" \
	"applying the series' patches .* done"
check "the pristine source is not written (inodes, mtimes, content)" \
	test "$before" = "$(state "$src")"

# The patched tree's series files are the project's (content, mode).
diffs=$(while read -r p; do
	a=$tree/$p b=$REPO/$p
	{ [ "$p" != MAINTAINERS ] && [ -e "$b" ]; } || continue
	cmp -s "$a" "$b" || echo "$p differs"
	[ "$(stat -c %a "$a")" = "$(stat -c %a "$b")" ] || echo "$p: mode differs"
done <"$tree.paths")
check "the patched tree has the project's files ($(wc -l <"$tree.paths") paths)${diffs:+: $diffs}" \
	test -z "$diffs"

# A warm run: nothing applied or rewritten.
farm=$(state "$tree")
expect_rc "a warm run" 0 "$work/warm.log" "$VMTEST" -t current --stop-after tree
expect_no_grep "it applies nothing" "$work/warm.log" 'applying'
check "the tree's series paths are left alone" test "$farm" = "$(state "$tree")"

# A tree whose ringtest ptr_ring.c is not upstream's: the first patch,
# which changes it, does not apply, and the runner says so.
while read -r p; do
	[ -e "$src/$p" ] || continue
	mkdir -p "$(dirname "$fake/$p")" && ln "$src/$p" "$fake/$p"
done <"$tree.paths"
printf 'mrproper:\n\t@:\nkernelversion:\n\t@echo 7.3.4\n' >"$fake/Makefile"
cp -al "$fake" "$fake.ok"
rm "$fake/tools/virtio/ringtest/ptr_ring.c"
echo '/* not upstream */' >"$fake/tools/virtio/ringtest/ptr_ring.c"
expect_rc "a tree the series does not apply to: exit 1, a finding about the series" 1 "$work/fail.log" \
	"$VMTEST" -t current --ksrc "$fake" --stop-after tree
expect_grep "the runner says the series does not apply, and to what" \
	"$work/fail.log" "error: the series does not apply to $fake"
expect_grep "the patch that does not apply is named" "$work/fail.log" \
	'series/virtio/0001-.*\.patch does not apply'

# A tree where a patch's context differs a little: it would apply with
# fuzz, and the runner applies none.
rm -rf "$fake.fuzz" && cp -al "$fake.ok" "$fake.fuzz"
f=$fake.fuzz/tools/virtio/ringtest/ptr_ring.c
sed 's/^#define kvfree kfree$/#define kvfree  kfree/' "$f" >"$f.new" && mv "$f.new" "$f"
expect_rc "a tree the series applies to only with fuzz: exit 1" 1 \
	"$work/fuzz.log" "$VMTEST" -t current --ksrc "$fake.fuzz" --stop-after tree
expect_grep "... naming the patch" "$work/fuzz.log" \
	'series/virtio/0001-.*\.patch does not apply'

# A shallow clone, no git identity, series/'s scripts gone: the runner
# still applies the patch files (it never runs series/).
git clone -q --depth 1 "file://$REPO" "$work/clone" 2>/dev/null
rm -f "$work/clone/series/"*.sh "$work/clone/series/"*.py
mkdir -p "$work/home"
env -u GIT_AUTHOR_NAME -u GIT_AUTHOR_EMAIL -u GIT_COMMITTER_NAME \
	-u GIT_COMMITTER_EMAIL HOME="$work/home" XDG_CONFIG_HOME="$work/home" \
	GIT_CONFIG_NOSYSTEM=1 \
	"$work/clone/vmtest/vmtest.sh" -t current --ksrc "$fake.ok" --stop-after tree \
	>"$work/clone.log" 2>&1
expect_grep "a shallow clone without series/'s scripts prepares the tree" \
	"$work/clone.log" '^current src=.* tree='

# A new target is one file: an x86 build target beside current gets a
# tree of its own.
printf 'arch=x86_64\nkernel=build\n' >"$work/clone/vmtest/targets/x86b"
"$work/clone/vmtest/vmtest.sh" -t x86b --ksrc "$fake.ok" --stop-after tree \
	>"$work/x86b.log" 2>&1
expect_grep "a new target file, vmtest/targets/x86b, prepares a tree of its own" \
	"$work/x86b.log" '^x86b src=.* tree=[^ ]*-x86b( |$)'

# A record query needs neither QEMU nor a compiler: in a PATH that has
# none of the build and boot tools, and an apt-get that must not run,
# --stop-after tree answers.
path_without "$work/nobuild" 'qemu-*' 'gcc*' cc '*-gcc' make flex bison \
	pahole apt-get
standin "$work/nobuild/apt-get" "echo \"apt-get \$*\" >>'$work/apt.calls'" \
	'exit 100'
expect_rc "a record query without QEMU, gcc or make: exit 0" 0 "$work/query.log" \
	env PATH="$work/nobuild" "$VMTEST" -t current --stop-after tree
check "... with the tree in its record" grep -qF "tree=$tree " "$work/query.log"
check "... and nothing installed for it" test ! -e "$work/apt.calls"

tests_done apply
