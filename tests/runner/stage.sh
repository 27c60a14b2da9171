#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One stage of the runner, with its libraries as vmtest.sh uses them, for
# the runner's tests (tests/runner/bin's stand-ins first in PATH); the
# guest has FAKE_TARGET's architecture (default current). Prints 'rc=N
# boots=N' at the end.
#
# usage: stage.sh STAGE JOBDIR, STAGE one of:
#   step, stepfn  a build step running make, or a shell function that runs
#             it (as make_config and make_farm are)
#   boot      run_vm of a stand-in kernel (FAKE_BOOTS says what it does)
#   distro    ensure_distro_kernel, its initramfs in JOBDIR/initrd; prints
#             the DISTRO_ variables
#   install   apt_install of the packages FAKE_PKGS names
#   selftests build_selftests of FAKE_TREE's FAKE_TARGETS into
#             JOBDIR/install (O=JOBDIR/build, KDIR=JOBDIR/kdir)
#   tree      prepare_tree of FAKE_SRC with FAKE_SERIES' patches (cache
#             FAKE_CACHE), FAKE_HOLD s, then build_selftests from it

# shellcheck source-path=SCRIPTDIR
TESTS_RUNNER=$(dirname "$(realpath "$0")")
VMTEST_DIR=$(dirname "$(dirname "$TESTS_RUNNER")")/vmtest
# shellcheck source=../../vmtest/lib/common.sh
. "$VMTEST_DIR/lib/common.sh"
# shellcheck source=../../vmtest/lib/arch.sh
. "$VMTEST_DIR/lib/arch.sh"
# shellcheck source=../../vmtest/lib/initramfs.sh
. "$VMTEST_DIR/lib/initramfs.sh"
# shellcheck source=../../vmtest/lib/vm.sh
. "$VMTEST_DIR/lib/vm.sh"
# shellcheck source=../../vmtest/lib/patch.sh
. "$VMTEST_DIR/lib/patch.sh"
# shellcheck source=../../vmtest/lib/tree.sh
. "$VMTEST_DIR/lib/tree.sh"
# shellcheck source=../../vmtest/lib/packages.sh
. "$VMTEST_DIR/lib/packages.sh"
# shellcheck source=../../vmtest/lib/distro.sh
. "$VMTEST_DIR/lib/distro.sh"
# shellcheck source=../../vmtest/lib/kbuild.sh
. "$VMTEST_DIR/lib/kbuild.sh"

job=$2
export BOOT_MARKER PATH=$TESTS_RUNNER/bin:$PATH
# Read by vm.sh, which vmtest.sh sets from its options.
# shellcheck disable=SC2034
DETERMINISTIC=0 DEBUG=0 SHELL_MODE=${SHELL_MODE:-0} VM_CPUS=2 VM_MEM=1G \
	VM_TIMEOUT=${VM_TIMEOUT:-30} VMTEST_CACHE=$job VMTEST_LOGS=$job
VMTEST_SERIES=$(dirname "$VMTEST_DIR")
load_target "${FAKE_TARGET:-current}"
GUEST_ROOT=${GUEST_ROOT:-$job/root}
# As vmtest.sh's targets: the running step or guest stopped, cleaned up
trap cleanup EXIT
trap 'msg "interrupted"; exit 130' INT
trap 'msg "terminated"; exit 143' TERM
case $1 in
step) step "building" "$job/step.log" make ;;
stepfn)
	configure() { echo "configuring"; make; }
	step "configuring" "$job/step.log" configure
	;;
boot) choose_accel /boot/fake-kernel && run_vm /boot/fake-kernel "$job/initrd" "$job" ;;
selftests)
	# The real make, on the tree's real Makefiles.
	PATH=${PATH#"$TESTS_RUNNER/bin:"}
	# shellcheck disable=SC2034 # read by build_selftests
	KTREE=$FAKE_TREE SERIES_TARGETS=$FAKE_TARGETS
	step "building the selftests" "$job/selftests.log" \
		build_selftests "$job/install" "$job/build" "$job/kdir"
	;;
tree)
	PATH=${PATH#"$TESTS_RUNNER/bin:"}
	VMTEST_CACHE=$FAKE_CACHE VMTEST_SERIES=$FAKE_SERIES
	prepare_tree "$FAKE_SRC" "$(tree_identity "$FAKE_SRC")" \
		"${FAKE_TARGET:-current}" &&
		sleep "${FAKE_HOLD:-0}" &&
		step "building the selftests" "$job/selftests.log" \
			build_selftests "$job/install" "$KTREE.build" "$job/kdir"
	;;
install) read -ra pkgs <<<"$FAKE_PKGS" && apt_install "${pkgs[@]}" ;;
distro)
	ensure_distro_kernel &&
		make_initramfs "$job/initrd" "$DISTRO_RELEASE" "$DISTRO_ROOT" &&
		declare -p DISTRO_RELEASE DISTRO_ROOT DISTRO_KERNEL \
			DISTRO_KDIR
	;;
*) die "unknown stage '$1'" ;;
esac
echo "rc=$? boots=$(cat "$job/boots" 2>/dev/null || echo 0)"
