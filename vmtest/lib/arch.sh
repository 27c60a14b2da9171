# SPDX-License-Identifier: GPL-2.0
# A target as data: its file in vmtest/targets/ names the architecture
# and the kernel's origin; what differs per architecture is here, so that
# no step has a copy per target and a new target is one file.
# shellcheck shell=bash disable=SC2034 # sets globals for vmtest.sh

# load_target TARGET: read vmtest/targets/TARGET, a KEY=VALUE file
# (arch=, kernel=: build from the tree, or debian's prebuilt image), and
# set its architecture's values.
#   TARGET_KERNEL  build or debian
#   KARCH          ARCH= of the kernel and selftest builds
#   CROSS_COMPILE  the cross toolchain's prefix, empty for a native build
#   KIMAGE_TARGET  the make target of the bootable image
#   KIMAGE_PATH    that image, relative to the build directory
#   QEMU           the system emulator
#   QEMU_MACHINE   its machine options (x86: the default PC)
#   VM_CONSOLE     the guest's serial console
#   DET_CPU        -D's CPU: a server model, whose mitigations the guest
#                  applies (-cpu max claims to need few); empty: no -D
#   GUEST_ROOT     the guest's read-only 9p root: the host's for x86, else
#                  empty until ensure_guest_root makes Debian's arm64 one
#   ACCEL_NATIVE   1 when KVM could run the guest on this host
load_target()
{
	local file=$VMTEST_DIR/targets/$1 key value arch='' kernel=''

	if ! [[ $1 =~ ^[a-z0-9_-]+$ ]] || [ ! -f "$file" ]; then
		die "no such target: '$1' (vmtest/targets/ has: $(targets))"
	fi
	while IFS='=' read -r key value; do
		case $key in
		'' | '#'*) ;;
		arch) arch=$value ;;
		kernel) kernel=$value ;;
		*) die "$file: unknown key '$key'" ;;
		esac
	done <"$file"
	case $kernel in
	build | debian) TARGET_KERNEL=$kernel ;;
	*) die "$file: kernel= must be build or debian, not '$kernel'" ;;
	esac
	case $arch in
	arm64)
		KARCH=arm64
		CROSS_COMPILE=aarch64-linux-gnu-
		KIMAGE_TARGET=Image
		KIMAGE_PATH=arch/arm64/boot/Image
		QEMU=qemu-system-aarch64
		QEMU_MACHINE="-M virt"
		VM_CONSOLE=ttyAMA0
		DET_CPU=
		GUEST_ROOT=
		[ "$(uname -m)" = aarch64 ] && ACCEL_NATIVE=1 || ACCEL_NATIVE=0
		;;
	x86_64)
		KARCH=x86_64
		CROSS_COMPILE=
		KIMAGE_TARGET=bzImage
		KIMAGE_PATH=arch/x86/boot/bzImage
		QEMU=qemu-system-x86_64
		QEMU_MACHINE=
		VM_CONSOLE=ttyS0
		DET_CPU=Skylake-Server-v4
		GUEST_ROOT=/
		ACCEL_NATIVE=1
		;;
	*) die "$file: arch= must be x86_64 or arm64, not '$arch'" ;;
	esac
}

# The targets vmtest/targets/ describes, on one line.
targets()
{
	(cd "$VMTEST_DIR/targets" && echo *)
}

# The make variables of a build for the target's architecture.
kmake_args()
{
	echo "ARCH=$KARCH"
	[ -z "$CROSS_COMPILE" ] || echo "CROSS_COMPILE=$CROSS_COMPILE"
}
