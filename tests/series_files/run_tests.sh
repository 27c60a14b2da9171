#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What the committed series touch (vmtest/lib/series_files.py), on a
# small fake kernel tree and a small series of patch files
# (series/virtio/, series/net-next/).

# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$(realpath "$0")")/../lib.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
src=$work/linux
series=$work/series

mkdir -p "$src/tools/testing/selftests/net/bench/page_pool" \
	"$src/Documentation/networking" "$series"
cat >"$src/MAINTAINERS" <<'EOM'
List of maintainers
===================

Maintainers List
----------------

PAGE POOL
M:	Jesper Dangaard Brouer <hawk@kernel.org>
L:	netdev@vger.kernel.org
S:	Supported
F:	include/net/page_pool/
F:	net/core/page_pool.c

PTP HARDWARE CLOCK SUPPORT
M:	Someone <someone@example.org>
S:	Maintained
F:	drivers/ptp/

THE REST
M:	Linus Torvalds <torvalds@linux-foundation.org>
S:	Buried alive in reporters
F:	*
EOM
printf 'TARGETS += net\nTARGETS += net/af_unix\nTARGETS += proc\nTARGETS += ptrace\n' \
	>"$src/tools/testing/selftests/Makefile"
printf 'Networking\n==========\n\n.. toctree::\n   :maxdepth: 2\n\n   netdevices\n   page_pool\n   phy\n' \
	>"$src/Documentation/networking/index.rst"
echo upstream >"$src/tools/testing/selftests/net/bench/page_pool/old_simple.c"
echo 'all:' >"$src/Makefile"

# The series: its final files in a repository ($series, as the project
# keeps them), and its patch files, made in a git copy of the tree.
# virtio: the ptr_ring selftest; net-next: the benchmark, a change to
# net/core/page_pool.c, the upstream file it replaces deleted.
k=$work/k
mkdir -p "$src/net/core" && echo 'int pp;' >"$src/net/core/page_pool.c"
cp -a "$src" "$k"
git -C "$k" init -q && git -C "$k" add -A &&
	git -C "$k" -c user.name=t -c user.email=t@t commit -qm base
fk=$k/tools/testing/selftests
mkdir -p "$fk/ptr_ring"
echo 'TEST_GEN_PROGS := p' >"$fk/ptr_ring/Makefile"
ptr_ring='PTR_RING
M:	Someone Else <else@example.org>
L:	netdev@vger.kernel.org
S:	Maintained
F:	include/linux/ptr_ring.h
F:	tools/testing/selftests/ptr_ring/'
awk -v e="$ptr_ring" '/^THE REST$/ { print e "\n" } { print }' "$k/MAINTAINERS" >"$work/m" &&
	mv "$work/m" "$k/MAINTAINERS"
sed -i 's|^TARGETS += ptrace$|TARGETS += ptr_ring\n&|' "$fk/Makefile"
git -C "$k" add -A && git -C "$k" -c user.name=t -c user.email=t@t commit -qm virtio
mkdir -p "$series/series/virtio" "$series/series/net-next"
git -C "$k" format-patch -q --cover-letter -o "$series/series/virtio" HEAD~
git -C "$k" reset -q --hard HEAD~
mkdir -p "$fk/net/bench/page_pool" "$k/Documentation/networking"
echo 'TEST_PROGS := t.sh' >"$fk/net/bench/Makefile"
echo 'obj-m += b.o' >"$fk/net/bench/page_pool/Makefile"
echo 'int x;' >"$fk/net/bench/page_pool/b.c"
git -C "$k" rm -q tools/testing/selftests/net/bench/page_pool/old_simple.c
echo 'Bench' >"$k/Documentation/networking/page_pool_bench.rst"
echo 'int pp2;' >>"$k/net/core/page_pool.c"
sed -i 's|^F:	net/core/page_pool.c$|&\nF:	tools/testing/selftests/net/bench/|' "$k/MAINTAINERS"
sed -i 's|^TARGETS += net/af_unix$|&\nTARGETS += net/bench|' "$fk/Makefile"
sed -i 's|^   page_pool$|&\n   page_pool_bench|' "$k/Documentation/networking/index.rst"
git -C "$k" add -A && git -C "$k" -c user.name=t -c user.email=t@t commit -qm net-next
git -C "$k" format-patch -q --cover-letter -o "$series/series/net-next" HEAD~
# The project's files: the final ones, MAINTAINERS as the added entries.
for f in tools/testing/selftests/net/bench/Makefile \
	 tools/testing/selftests/net/bench/page_pool/Makefile \
	 tools/testing/selftests/net/bench/page_pool/b.c \
	 Documentation/networking/page_pool_bench.rst net/core/page_pool.c; do
	mkdir -p "$(dirname "$series/$f")" && cp "$k/$f" "$series/$f"
done
mkdir -p "$series/tools/testing/selftests/ptr_ring"
echo 'TEST_GEN_PROGS := p' >"$series/tools/testing/selftests/ptr_ring/Makefile"
printf 'PAGE POOL\nF:\ttools/testing/selftests/net/bench/\n\n%s\n' "$ptr_ring" >"$series/MAINTAINERS"

files=$REPO/vmtest/lib/series_files.py
check "--patches lists virtio's, then net-next's, without their cover letters" \
	diff <(python3 "$files" --series "$series" --patches | sed "s|^$series/||") - <<'EOM'
series/virtio/0001-virtio.patch
series/net-next/0001-net-next.patch
EOM
targets=$(python3 "$files" --series "$series" --targets)
check "--targets prints the selftest directories the series add ($targets)" \
	test "$targets" = "net/bench ptr_ring"

# The build key's digest follows the files a kernel build reads, only.
digest()
{
	python3 "$files" --series "$series" --kernel-digest
}
d0=$(digest)
echo 'changed' >>"$series/Documentation/networking/page_pool_bench.rst"
echo 'echo changed' >>"$series/tools/testing/selftests/ptr_ring/Makefile"
check "the kernel digest ignores selftests and Documentation" test "$d0" = "$(digest)"
echo 'int pp2;' >>"$series/net/core/page_pool.c"
check "the kernel digest follows net/core/page_pool.c" test "$d0" != "$(digest)"

# --entries: what a patched MAINTAINERS adds to the base's: an existing
# entry's new lines under its title, a new entry whole.
check "--entries: an existing entry's added line, with its title" \
	diff <(python3 "$files" --entries "$src/MAINTAINERS" "$k/MAINTAINERS") - <<'EOM'
PAGE POOL
F:	tools/testing/selftests/net/bench/
EOM
git -C "$k" apply --include=MAINTAINERS "$series"/series/virtio/0001-*.patch
check "--entries: with virtio's new entry, the project's MAINTAINERS" \
	diff <(python3 "$files" --entries "$src/MAINTAINERS" "$k/MAINTAINERS") \
	"$series/MAINTAINERS"
expect_rc "no --series: exit 2" 2 "$work/usage.log" python3 "$files" --targets
tests_done series_files
