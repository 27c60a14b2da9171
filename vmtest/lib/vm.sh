# SPDX-License-Identifier: GPL-2.0
# Boot the guest under QEMU and judge its run: the job's exit code, plus
# any kernel splat on the console, plus the timeout.
# shellcheck shell=bash

# A kernel line of the console: it starts with a printk timestamp.
KERNEL_LINE='^\[ *[0-9]+\.[0-9]+\]'
# Kernel reports that fail a run whatever the tests said. Only kernel
# lines (printk timestamps) are matched, not the tests' own output.
SPLAT_RE='(Oops|BUG:|WARNING:|Kernel panic|general protection fault|KASAN:|UBSAN:|unreferenced object|soft lockup|hard LOCKUP|rcu: INFO|rcu_(sched|preempt) (self-)?detected stall|INFO: task .* blocked for more than|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|ODEBUG:|list_(add|del) corruption|kernel BUG at)'

rc_word()
{
	case $1 in
	0) echo pass ;;
	4) echo skip ;;
	*) echo FAIL ;;
	esac
}

accel_opts()
{
	if [ "$DETERMINISTIC" -eq 1 ]; then
		# One instruction, one tick of the virtual clock and TSC;
		# icount needs single-threaded TCG, and sleep=off keeps idle
		# time from depending on the host.
		echo "-accel tcg,thread=single -cpu max -icount shift=0,sleep=off"
	elif [ -w /dev/kvm ] && [ -r /dev/kvm ]; then
		echo "-accel kvm -cpu host"
	else
		echo "-accel tcg,thread=multi -cpu max"
	fi
}

# Show each splat on the console log with the lines around it.
report_splats()
{
	local log=$1 n

	n=$(grep -cE "$KERNEL_LINE.*$SPLAT_RE" "$log")
	[ "$n" -gt 0 ] || return 1
	msg "the kernel reported $n problem line(s):"
	grep -nE "$KERNEL_LINE.*$SPLAT_RE" "$log" | head -n 3 |
	while IFS=: read -r line _; do
		echo "----- console lines $((line > 5 ? line - 5 : 1))-$((line + 30)) -----"
		sed -n "$((line > 5 ? line - 5 : 1)),$((line + 30))p" "$log"
	done >&2
	echo "-----" >&2
	return 0
}

# Boots tried before a kernel that crashes while booting fails the run.
BOOT_ATTEMPTS=3

# crashed_booting QEMU_RC JOBDIR: did the kernel die before userspace
# started? No test has run then, so the crash is the emulation's or the
# kernel's own boot (Debian's kernel has been seen to take an int3 Oops in
# sched_clock_cpu while another vCPU patched a static branch under
# multi-threaded TCG), and the boot is worth trying again. A timeout is
# not retried: a hang would just hang again.
crashed_booting()
{
	local rc=$1 job=$2

	[ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] && [ "$SHELL_MODE" -eq 0 ] &&
		[ ! -s "$job/rc" ] &&
		! grep -qF "$BOOT_MARKER" "$job/console.log" &&
		grep -qE "$KERNEL_LINE.*$SPLAT_RE" "$job/console.log"
}

# run_vm KERNEL INITRD JOBDIR: returns the job's code, or 1 on a splat,
# a crash or a timeout. A kernel that crashes before userspace starts is
# booted again, up to BOOT_ATTEMPTS times, each crash kept and reported.
run_vm()
{
	local kernel=$1 initrd=$2 job=$3 log=$3/console.log
	local attempt rc

	for ((attempt = 1; ; attempt++)); do
		boot_vm "$kernel" "$initrd" "$job"
		rc=$?
		crashed_booting "$rc" "$job" || break
		mv "$log" "$job/console.boot-$attempt.log"
		msg "the kernel crashed while booting, before any test ran" \
			"(boot $attempt of $BOOT_ATTEMPTS):"
		grep -m 3 -E "$KERNEL_LINE.*($SPLAT_RE|RIP:)" \
			"$job/console.boot-$attempt.log" >&2
		[ "$attempt" -lt "$BOOT_ATTEMPTS" ] || {
			msg "giving up; consoles kept in $job"
			return 1
		}
		msg "booting again; that console is kept as $job/console.boot-$attempt.log"
	done
	judge_vm "$rc" "$job"
}

# boot_vm KERNEL INITRD JOBDIR: one boot, QEMU's exit code.
boot_vm()
{
	local kernel=$1 initrd=$2 job=$3 log=$3/console.log
	local append rc in=/dev/null
	local -a qemu

	append="console=ttyS0,115200 loglevel=5 printk.time=1 panic=-1"
	append+=" vmtest_init=$VMTEST_DIR/guest/init"
	append+=" vmtest_work=$VMTEST_CACHE vmtest_job=$job"
	[ "$VMTEST_VERBOSE" -gt 0 ] && append=${append/loglevel=5/loglevel=7}
	# A debug kernel under emulation runs ACPI's AML so slowly that the
	# PCI interrupt routing method times out and virtio never gets an
	# interrupt: route them from the BIOS table instead.
	[ "$DEBUG" -eq 1 ] && [ "$kernel" != "/boot/${kernel##*/}" ] &&
		append+=" acpi=noirq"

	# shellcheck disable=SC2207,SC2054 # single words; commas are QEMU's
	qemu=(qemu-system-x86_64 $(accel_opts) -nodefaults -no-reboot
		-display none -smp "$VM_CPUS" -m "$VM_MEM"
		-chardev "stdio,id=con,signal=off,logfile=$log"
		-serial chardev:con
		-fsdev local,id=root,path=/,security_model=none,readonly=on,multidevs=remap
		-device virtio-9p-pci,fsdev=root,mount_tag=root
		-fsdev "local,id=work,path=$VMTEST_CACHE,security_model=none,multidevs=remap"
		-device virtio-9p-pci,fsdev=work,mount_tag=work
		-kernel "$kernel" -initrd "$initrd" -append "$append")

	[ "$SHELL_MODE" -eq 1 ] && in=/dev/stdin
	timeout -k 10 "$VM_TIMEOUT" "${qemu[@]}" <"$in"
	rc=$?
	[ "$SHELL_MODE" -eq 1 ] && stty sane 2>/dev/null
	return "$rc"
}

# judge_vm QEMU_RC JOBDIR: the run's code from QEMU's exit, the console
# and the job's recorded exit code.
judge_vm()
{
	local rc=$1 job=$2 log=$2/console.log

	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		msg "guest timed out after $VM_TIMEOUT s and was killed; last console lines:"
		tail -n 30 "$log" >&2
		report_splats "$log"
		return 1
	fi
	[ "$rc" -eq 0 ] || { msg "qemu failed (exit $rc)"; return 1; }
	if report_splats "$log"; then
		return 1
	fi
	if [ ! -s "$job/rc" ]; then
		msg "the guest ended without a result (crash or panic?); last console lines:"
		tail -n 30 "$log" >&2
		return 1
	fi
	rc=$(cat "$job/rc")
	case $rc in
	0 | 4) return "$rc" ;;
	*) return 1 ;;
	esac
}
