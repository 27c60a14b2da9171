# SPDX-License-Identifier: GPL-2.0
# Boot the guest under QEMU, then judge the job's files (lib/judge.py:
# QEMU's exit, kernel splats on the console, kmemleak, the KTAP).
# shellcheck shell=bash

JUDGE=$VMTEST_DIR/lib/judge.py

# The accelerator: kvm, tcg, or auto (KVM when it can run a guest).
VMTEST_ACCEL=${VMTEST_ACCEL:-auto}
# The device node the KVM probe needs (a test points it elsewhere).
KVM_DEV=${KVM_DEV:-/dev/kvm}
# Seconds a probe guest has to print its first console line.
KVM_PROBE_SECS=${KVM_PROBE_SECS:-10}

# kvm_runs KERNEL: can KVM run this kernel? Some machines' /dev/kvm creates
# VMs whose guest never prints: boot it without a root, which under a
# working KVM prints its banner and panics within a second or two.
kvm_runs()
{
	local kernel=$1

	[ -r "$KVM_DEV" ] && [ -w "$KVM_DEV" ] || return 1
	# shellcheck disable=SC2086,SC2153 # words; QEMU: lib/arch.sh
	KVM_PROBE_OUT=$(timeout -k 2 "$KVM_PROBE_SECS" "$QEMU" $QEMU_MACHINE \
		-accel kvm -cpu host -nodefaults -display none -no-reboot \
		-m 256 -serial stdio -kernel "$kernel" \
		-append "console=$VM_CONSOLE panic=-1" </dev/null 2>&1)
	grep -q 'Linux version' <<<"$KVM_PROBE_OUT"
}

# choose_accel KERNEL: settle VMTEST_ACCEL to kvm or tcg, probing once; a
# foreign architecture is emulated, -D is TCG whatever it says.
choose_accel()
{
	[ "$VMTEST_ACCEL" = auto ] && [ "$DETERMINISTIC" -eq 0 ] || return 0
	if [ "$ACCEL_NATIVE" -eq 0 ] || [ ! -e "$KVM_DEV" ]; then
		VMTEST_ACCEL=tcg
	elif kvm_runs "$1"; then
		VMTEST_ACCEL=kvm
	else
		VMTEST_ACCEL=tcg
		msg "$KVM_DEV cannot run a guest (no kernel banner within $KVM_PROBE_SECS s${KVM_PROBE_OUT:+: $(head -n 1 <<<"$KVM_PROBE_OUT")}): using TCG emulation"
	fi
}

# accel_name: how the guest runs, for the job's records
accel_name()
{
	[ "$DETERMINISTIC" -eq 1 ] && echo icount || echo "$VMTEST_ACCEL"
}

# vm_cpu: the guest's CPU model
vm_cpu()
{
	if [ "$DETERMINISTIC" -eq 1 ]; then
		echo "$DET_CPU"
	elif [ "$VMTEST_ACCEL" = kvm ]; then
		echo host
	else
		echo max
	fi
}

accel_opts()
{
	if [ "$DETERMINISTIC" -eq 1 ]; then
		# One instruction, one tick of the virtual clock and TSC (icount
		# needs single-threaded TCG; sleep=off: idle time not the
		# host's), on a named server CPU (lib/arch.sh DET_CPU).
		echo "-accel tcg,thread=single -icount shift=0,sleep=off"
	elif [ "$VMTEST_ACCEL" = kvm ]; then
		echo "-accel kvm"
	else
		echo "-accel tcg,thread=multi"
	fi
	echo "-cpu $(vm_cpu)"
}

# Boots tried before a kernel that crashes while booting fails the run.
BOOT_ATTEMPTS=3

# crashed_booting QEMU_RC JOBDIR: did the kernel die before userspace (no
# test ran: the emulation's or the boot's fault, see vmtest/README.md), so
# that booting again is worth it? A timeout (124, 125) would hang again.
crashed_booting()
{
	local rc=$1 job=$2

	[ "$rc" -lt 124 ] && [ "$SHELL_MODE" -eq 0 ] &&
		[ ! -s "$job/rc" ] &&
		! grep -qF "$BOOT_MARKER" "$job/console.log" &&
		python3 "$JUDGE" --splats "$job/console.log" >/dev/null
}

# run_vm KERNEL INITRD JOBDIR, after choose_accel: the job's code, or 1 on
# a splat, a crash or a timeout; a crash before userspace is booted again,
# up to BOOT_ATTEMPTS times, each crash kept and reported.
run_vm()
{
	local kernel=$1 initrd=$2 job=$3 log=$3/console.log
	local attempt rc

	for ((attempt = 1; ; attempt++)); do
		boot_vm "$kernel" "$initrd" "$job"
		rc=$?
		# shellcheck disable=SC2046 # the version is a word
		printf 'rc=%s\ntimeout=%s\nboot_timeout=%s\naccel=%s\ncpu=%s\nversion=%s\n' \
			"$rc" "$VM_TIMEOUT" "$BOOT_TIMEOUT" "$(accel_name)" \
			"$(vm_cpu)" $("$QEMU" --version | sed -n '1s/.*version \([^ ]*\).*/\1/p') \
			>"$job/qemu"
		crashed_booting "$rc" "$job" || break
		mv "$log" "$job/console.boot-$attempt.log"
		msg "the kernel crashed while booting, before any test ran" \
			"(boot $attempt of $BOOT_ATTEMPTS):"
		python3 "$JUDGE" --splats "$job/console.boot-$attempt.log" |
			head -n 3 >&2
		[ "$attempt" -lt "$BOOT_ATTEMPTS" ] || {
			msg "giving up; consoles kept in $job"
			return 1
		}
		msg "booting again; that console is kept as $job/console.boot-$attempt.log"
	done
	python3 "$JUDGE" "$job"
}

# Seconds a guest has to reach userspace (BOOT_MARKER): a debug kernel
# under emulation needs a minute; one hung in early boot is killed then.
BOOT_TIMEOUT=${VMTEST_BOOT_TIMEOUT:-240}

# boot_vm KERNEL INITRD JOBDIR: one boot, QEMU's exit code; 124 when the
# guest ran past VM_TIMEOUT, 125 when it did not reach userspace within
# BOOT_TIMEOUT.
boot_vm()
{
	local kernel=$1 initrd=$2 job=$3 log=$3/console.log
	local append rc elapsed=0
	local -a qemu machine

	append="console=$VM_CONSOLE,115200 loglevel=5 printk.time=1 panic=-1"
	[ "$VMTEST_VERBOSE" -gt 0 ] && append=${append/loglevel=5/loglevel=7}
	# A debug kernel under emulation runs ACPI's AML so slowly that the
	# PCI interrupt routing method times out and virtio never gets an
	# interrupt: route them from the BIOS table instead.
	[ "$DEBUG" -eq 1 ] && [ "$kernel" != "${DISTRO_KERNEL:-}" ] &&
		[ "$KARCH" = x86_64 ] && append+=" acpi=noirq"
	# Under multi-threaded TCG the watchdog finds the TSC skewed with the
	# host's load and flips a static branch, which can Oops another vCPU.
	[ "$KARCH" = x86_64 ] && [ "$DETERMINISTIC" -eq 0 ] &&
		[ "$VMTEST_ACCEL" != kvm ] && append+=" tsc=reliable"
	# The *_dma tests' DMA layer: bounce buffers for every mapping, or the
	# emulated VT-d for the runner-only patch's edu device (VT-d first)
	[ "${VM_DMA:-direct}" = swiotlb ] && append+=" swiotlb=force"
	[ -z "${VM_APPEND:-}" ] || append+=" $VM_APPEND"
	read -ra machine <<<"$QEMU_MACHINE"
	if [ "${VM_DMA:-direct}" = iommu ]; then
		append+=" intel_iommu=on"
		machine=(-M q35 -device intel-iommu -device edu)
	fi

	# The root: the host's own, or one made for the guest (lib/arch.sh).
	# shellcheck disable=SC2207,SC2054,SC2206 # single words; commas are QEMU's
	qemu=("$QEMU" "${machine[@]}" $(accel_opts) -nodefaults -no-reboot
		-display none -smp "$VM_CPUS" -m "$VM_MEM"
		-chardev "stdio,id=con,signal=off,logfile=$log"
		-serial chardev:con
		-fsdev "local,id=root,path=$GUEST_ROOT,security_model=none,readonly=on,multidevs=remap"
		-device virtio-9p-pci,fsdev=root,mount_tag=root
		-fsdev "local,id=work,path=$VMTEST_CACHE,security_model=none,multidevs=remap"
		-device virtio-9p-pci,fsdev=work,mount_tag=work
		${INSN_PLUGIN:+-plugin "$INSN_PLUGIN,out=$job/insn.raw"}
		-kernel "$kernel" -initrd "$initrd"
		# After "--": init's arguments, so that the benchmarks' record
		# of the kernel's command line is the same from job to job
		-append "$append -- vmtest_init=$VMTEST_DIR/guest/init vmtest_work=$VMTEST_CACHE vmtest_job=$job")

	rm -f "$log"
	# The job keeps how its guest was started.
	printf '%q ' "${qemu[@]}" >"$job/qemu.cmd" && echo >>"$job/qemu.cmd"
	if [ "$SHELL_MODE" -eq 1 ]; then
		# The terminal is the guest's: QEMU in the foreground, with
		# no time limit; Ctrl-C goes to the guest.
		"${qemu[@]}"
		rc=$?
		stty sane 2>/dev/null
		return "$rc"
	fi
	spawn "${qemu[@]}" </dev/null
	while ! wait_timeout "$CHILD" 1; do
		elapsed=$((elapsed + 1))
		if [ "$elapsed" -ge "$VM_TIMEOUT" ]; then
			stop_child
			return 124
		fi
		if [ "$elapsed" -ge "$BOOT_TIMEOUT" ] &&
		   ! grep -qF "$BOOT_MARKER" "$log" 2>/dev/null; then
			stop_child
			return 125
		fi
	done
	reap_child
}
