#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Laying the series over a tree: on a small fake kernel tree, check that
# the series' files arrive, upstream files of an owned directory go, the
# MAINTAINERS entries, TARGETS and toctree entries are merged in order,
# a second lay changes nothing, and the source tree is never written
# (the distro target's tree is made this way; --targets, which the
# patched trees use, lays nothing).

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

# The series, as a git repository with one ignored build product.
mkdir -p "$series/tools/testing/selftests/net/bench/page_pool" \
	"$series/tools/testing/selftests/ptr_ring" "$series/Documentation/networking"
echo 'TEST_PROGS := t.sh' >"$series/tools/testing/selftests/net/bench/Makefile"
echo 'obj-m += b.o' >"$series/tools/testing/selftests/net/bench/page_pool/Makefile"
echo 'int x;' >"$series/tools/testing/selftests/net/bench/page_pool/b.c"
echo 'TEST_GEN_PROGS := p' >"$series/tools/testing/selftests/ptr_ring/Makefile"
echo 'Bench' >"$series/Documentation/networking/page_pool_bench.rst"
echo '*.ko' >"$series/.gitignore"
# A change to the kernel proper, and the project's tooling, not laid.
mkdir -p "$series/net/core" "$series/tests" "$series/vmtest"
echo 'int pp;' >"$series/net/core/page_pool.c"
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
git -C "$series" init -q && git -C "$series" add -A &&
	git -C "$series" -c user.name=t -c user.email=t@t commit -qm series

before=$(cd "$src" && find . -type f -printf '%p %i %s %T@\n' | sort |
	 sha256sum; cat MAINTAINERS tools/testing/selftests/Makefile | sha256sum)
cp -al "$src" "$farm"
# A build product in an owned dir must survive pruning (it is ignored).
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
check "an owned directory loses upstream files" test ! -e "$fb/page_pool/old_simple.c"
check "ignored build products are kept" test -e "$fb/page_pool/b.ko"
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
echo 'changed' >>"$series/Documentation/networking/page_pool_bench.rst"
echo 'echo changed' >>"$series/tools/testing/selftests/ptr_ring/Makefile"
check "the kernel digest ignores selftests and Documentation" test "$d0" = "$(digest)"
echo 'int pp2;' >>"$series/net/core/page_pool.c"
check "the kernel digest follows net/core/page_pool.c" test "$d0" != "$(digest)"
git -C "$series" checkout -q -- .

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

after=$(cd "$src" && find . -type f -printf '%p %i %s %T@\n' | sort |
	sha256sum; cat MAINTAINERS tools/testing/selftests/Makefile | sha256sum)
check "the source tree is unchanged (inodes, sizes, mtimes, content)" \
	test "$before" = "$after"
