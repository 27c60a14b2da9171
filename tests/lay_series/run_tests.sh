#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Laying the series over a tree: on a small fake kernel tree and a small
# series of patch files (series/virtio/, series/net-next/), check that
# the paths the patches touch arrive as the project has them, a file a
# patch deletes goes, the MAINTAINERS entries, TARGETS and toctree
# entries are merged in order, a second lay changes nothing, and the
# source tree is never written (the distro target's tree is made this
# way; --targets, which the patched trees use, lays nothing); a patch
# that changes a file the project lacks is refused; --entries gives a
# MAINTAINERS file's added entries.

# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$(realpath "$0")")/../lib.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
src=$work/linux
farm=$work/farm
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
python3 - "$k" <<'PY'
import sys
d = sys.argv[1]
m = open(d + '/MAINTAINERS').read().replace('THE REST\n', """PTR_RING
M:	Someone Else <else@example.org>
L:	netdev@vger.kernel.org
S:	Maintained
F:	include/linux/ptr_ring.h
F:	tools/testing/selftests/ptr_ring/

THE REST
""")
open(d + '/MAINTAINERS', 'w').write(m)
mk = d + '/tools/testing/selftests/Makefile'
t = open(mk).read().replace('TARGETS += ptrace', 'TARGETS += ptr_ring\nTARGETS += ptrace')
open(mk, 'w').write(t)
PY
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
# The project's files: the final ones, MAINTAINERS as the added entries;
# a build product and the project's tooling, not laid.
for f in tools/testing/selftests/net/bench/Makefile \
	 tools/testing/selftests/net/bench/page_pool/Makefile \
	 tools/testing/selftests/net/bench/page_pool/b.c \
	 Documentation/networking/page_pool_bench.rst net/core/page_pool.c; do
	mkdir -p "$(dirname "$series/$f")" && cp "$k/$f" "$series/$f"
done
mkdir -p "$series/tools/testing/selftests/ptr_ring"
echo 'TEST_GEN_PROGS := p' >"$series/tools/testing/selftests/ptr_ring/Makefile"
echo '*.ko' >"$series/.gitignore"
mkdir -p "$series/tests" "$series/vmtest"
echo 'echo test' >"$series/tests/run.sh"
echo 'echo runner' >"$series/vmtest/vmtest.sh"
cat >"$series/MAINTAINERS" <<'EOM'
PAGE POOL
F:	tools/testing/selftests/net/bench/

PTR_RING
M:	Someone Else <else@example.org>
L:	netdev@vger.kernel.org
S:	Maintained
F:	include/linux/ptr_ring.h
F:	tools/testing/selftests/ptr_ring/
EOM

before=$(cd "$src" && find . -type f -printf '%p %i %s %T@\n' | sort |
	 sha256sum; cat MAINTAINERS tools/testing/selftests/Makefile | sha256sum)
cp -al "$src" "$farm"
# A build product the series does not know stays.
touch "$farm/tools/testing/selftests/net/bench/page_pool/b.ko"

lay()
{
	python3 "$REPO/vmtest/lib/lay_series.py" --series "$series" --farm "$farm"
}

snap()
{
	(cd "$farm" && find . -type f -printf '%p %i %s %T@\n' | sort | sha256sum)
}

# --targets: what the runner's patched trees need, with nothing laid.
unlaid=$(snap)
targets=$(python3 "$REPO/vmtest/lib/lay_series.py" --series "$series" --targets)
check "--targets prints the targets ($targets)" test "$targets" = "net/bench ptr_ring"
check "--targets lays nothing" test "$unlaid" = "$(snap)"
targets=$(lay)
if [ "$targets" = "net/bench ptr_ring" ]; then
	ok "lay_series reports the series' selftest targets"
else
	not_ok "lay_series reports the series' selftest targets" "got '$targets'"
fi

fb=$farm/tools/testing/selftests/net/bench
check "series files are copied in" test -f "$fb/page_pool/b.c" -a -f "$fb/Makefile"
check "a file a patch deletes goes" test ! -e "$fb/page_pool/old_simple.c"
check "build products are kept" test -e "$fb/page_pool/b.ko"
check "a series file outside tools/ is laid (net/core/page_pool.c)" \
	test -f "$farm/net/core/page_pool.c"
check "the project's tooling is not laid" \
	test ! -e "$farm/tests" -a ! -e "$farm/vmtest"

# The build key's digest follows the files a kernel build reads, only.
digest()
{
	python3 "$REPO/vmtest/lib/lay_series.py" --series "$series" --kernel-digest
}
d0=$(digest)
cp -a "$series" "$work/series.saved"
echo 'changed' >>"$series/Documentation/networking/page_pool_bench.rst"
echo 'echo changed' >>"$series/tools/testing/selftests/ptr_ring/Makefile"
check "the kernel digest ignores selftests and Documentation" test "$d0" = "$(digest)"
echo 'int pp2;' >>"$series/net/core/page_pool.c"
check "the kernel digest follows net/core/page_pool.c" test "$d0" != "$(digest)"
rm -rf "$series" && mv "$work/series.saved" "$series"

check "existing entry gains the series' F: line, in order" \
	diff <(sed -n '/^PAGE POOL$/,/^$/p' "$farm/MAINTAINERS") - <<'EOM'
PAGE POOL
M:	Jesper Dangaard Brouer <hawk@kernel.org>
L:	netdev@vger.kernel.org
S:	Supported
F:	include/net/page_pool/
F:	net/core/page_pool.c
F:	tools/testing/selftests/net/bench/

EOM
check "new entry is inserted in alphabetical order" \
	diff <(grep -E '^(PAGE POOL|PTP|PTR_RING|THE REST)' "$farm/MAINTAINERS") - <<'EOM'
PAGE POOL
PTP HARDWARE CLOCK SUPPORT
PTR_RING
THE REST
EOM
check "TARGETS gain net/bench and ptr_ring in order" \
	diff "$farm/tools/testing/selftests/Makefile" - <<'EOM'
TARGETS += net
TARGETS += net/af_unix
TARGETS += net/bench
TARGETS += proc
TARGETS += ptr_ring
TARGETS += ptrace
EOM
check "the Documentation page joins the toctree" \
	diff "$farm/Documentation/networking/index.rst" - <<'EOM'
Networking
==========

.. toctree::
   :maxdepth: 2

   netdevices
   page_pool
   page_pool_bench
   phy
EOM

first=$(snap)
lay >/dev/null
check "laying the series twice changes nothing" test "$first" = "$(snap)"

# A patch that changes a file the project does not have: refused.
mv "$series/net/core/page_pool.c" "$work/pp.c"
expect_rc "a patch changing a file the project lacks is refused" 1 \
	"$work/lack.log" lay
expect_grep "and named" "$work/lack.log" 'changes net/core/page_pool.c, which the project does not have'
mv "$work/pp.c" "$series/net/core/page_pool.c"

# --entries: what a MAINTAINERS adds to another, as the project keeps it.
check "--entries: the entries the patched MAINTAINERS adds are the project's" \
	diff <(python3 "$REPO/vmtest/lib/lay_series.py" --entries "$src/MAINTAINERS" \
	       "$farm/MAINTAINERS") "$series/MAINTAINERS"

after=$(cd "$src" && find . -type f -printf '%p %i %s %T@\n' | sort |
	sha256sum; cat MAINTAINERS tools/testing/selftests/Makefile | sha256sum)
check "the source tree is unchanged (inodes, sizes, mtimes, content)" \
	test "$before" = "$after"
tests_done lay_series
