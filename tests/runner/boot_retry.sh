#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The runner's judgement of a boot, with a stand-in QEMU that plays back
# consoles: a kernel that crashes before userspace starts is booted again
# (and each crash shown), at most three times; a crash once userspace ran
# fails the run at once. No VM needed.

# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$(realpath "$0")")/../lib.sh"

work=$(mktemp -d "$OUT/boot-retry.XXXXXX")
mkdir -p "$work/bin"
# The stand-in: plays the next console of $FAKE_BOOTS (words: crash, pass,
# oops-after) into the -chardev logfile, and writes the job's exit code
# the way the guest's init does.
cat >"$work/bin/qemu-system-x86_64" <<'EOF'
#!/bin/bash
for a in "$@"; do
	case $a in
	*logfile=*) log=${a##*logfile=} ;;
	*vmtest_job=*) job=${a##*vmtest_job=} ;;
	esac
done
n=$(($(cat "$job/boots" 2>/dev/null || echo 0) + 1))
echo "$n" >"$job/boots"
read -r -a plan <<<"$FAKE_BOOTS"
oops='[    2.431737] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI
[    2.432497] RIP: 0010:sched_clock_cpu+0x9/0x190
[    2.446334] Kernel panic - not syncing: Fatal exception in interrupt'
case ${plan[n - 1]} in
crash) echo "$oops" >"$log" ;;
pass)
	printf '%s\n' "$BOOT_MARKER" "ok 1 selftests: fake" >"$log"
	echo 0 >"$job/rc"
	;;
oops-after) printf '%s\n%s\n' "$BOOT_MARKER" "$oops" >"$log" ;;
esac
exit 0
EOF
chmod +x "$work/bin/qemu-system-x86_64"

# boot NAME PLAN: run_vm with the stand-in playing PLAN; prints its
# messages, then 'rc=N boots=N'.
boot()
{
	local job=$work/$1

	mkdir -p "$job"
	(
		# shellcheck source=../../vmtest/lib/common.sh
		. "$REPO/vmtest/lib/common.sh"
		# shellcheck source=../../vmtest/lib/initramfs.sh
		. "$REPO/vmtest/lib/initramfs.sh"
		# shellcheck source=../../vmtest/lib/vm.sh
		. "$REPO/vmtest/lib/vm.sh"
		export BOOT_MARKER FAKE_BOOTS=$2 PATH=$work/bin:$PATH
		# Read by vm.sh, which vmtest.sh sets from its options.
		# shellcheck disable=SC2034
		DETERMINISTIC=0 DEBUG=0 SHELL_MODE=0 VM_TIMEOUT=30 VM_CPUS=2 \
			VM_MEM=1G VMTEST_DIR=$REPO/vmtest
		run_vm /boot/fake-kernel "$work/initrd" "$job"
		echo "rc=$? boots=$(cat "$job/boots")"
	) 2>&1
}

out=$(boot once 'crash pass')
check "a crash while booting is booted again and the run passes" \
	grep -q '^rc=0 boots=2$' <<<"$out"
check "the crash while booting is shown" \
	grep -q 'crashed while booting, before any test ran (boot 1 of 3)' <<<"$out"
check "the crash while booting shows the kernel's report" \
	grep -q 'RIP: 0010:sched_clock_cpu' <<<"$out"
check "the crashed boot's console is kept" test -s "$work/once/console.boot-1.log"

out=$(boot always 'crash crash crash pass')
check "a kernel that always crashes booting fails after 3 boots" \
	grep -q '^rc=1 boots=3$' <<<"$out"
check "giving up is said" grep -q 'giving up' <<<"$out"

out=$(boot after 'oops-after pass')
check "a crash once userspace ran fails without booting again" \
	grep -q '^rc=1 boots=1$' <<<"$out"
check "a crash once userspace ran is shown" \
	grep -q 'the kernel reported .* problem line' <<<"$out"

rm -rf "$work"
tests_done boot_retry
