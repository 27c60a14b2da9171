# SPDX-License-Identifier: GPL-2.0
# What differs between the architectures a target builds and boots, as
# data: the build, QEMU and the guest's console and root read these, so
# no step has a copy per architecture.
# shellcheck shell=bash disable=SC2034 # sets globals for vmtest.sh

# target_arch TARGET: set the architecture of TARGET (current, distro or
# arm64).
#   KARCH          ARCH= of the kernel and selftest builds
#   CROSS_COMPILE  the cross toolchain's prefix, empty for a native build
#   KIMAGE_TARGET  the make target of the bootable image
#   KIMAGE_PATH    that image, relative to the build directory
#   QEMU           the system emulator
#   QEMU_MACHINE   its machine options (x86: the default PC)
#   VM_CONSOLE     the guest's serial console
#   GUEST_ROOT     the directory the guest gets as its read-only root over
#                  9p: the host's own root for x86, a small root made of
#                  Debian's arm64 packages otherwise (set by the target)
#   ACCEL_NATIVE   1 when KVM could run the guest on this host
target_arch()
{
	case $1 in
	arm64)
		KARCH=arm64
		CROSS_COMPILE=aarch64-linux-gnu-
		KIMAGE_TARGET=Image
		KIMAGE_PATH=arch/arm64/boot/Image
		QEMU=qemu-system-aarch64
		QEMU_MACHINE="-M virt"
		VM_CONSOLE=ttyAMA0
		GUEST_ROOT=
		[ "$(uname -m)" = aarch64 ] && ACCEL_NATIVE=1 || ACCEL_NATIVE=0
		;;
	*)
		KARCH=x86_64
		CROSS_COMPILE=
		KIMAGE_TARGET=bzImage
		KIMAGE_PATH=arch/x86/boot/bzImage
		QEMU=qemu-system-x86_64
		QEMU_MACHINE=
		VM_CONSOLE=ttyS0
		GUEST_ROOT=/
		ACCEL_NATIVE=1
		;;
	esac
}

# The make variables of a build for the target's architecture.
kmake_args()
{
	echo "ARCH=$KARCH"
	[ -z "$CROSS_COMPILE" ] || echo "CROSS_COMPILE=$CROSS_COMPILE"
}
