# common.sh: what boot-point.sh, bisect-step.sh, build-kernel.sh and cost.sh share, sourced
# by each (POSIX sh, checked with dash; not run on its own): the stderr line, the usage
# error, this machine's architecture, and one table of what each architecture is to them.

# say MESSAGE: one stderr line, prefixed with the script's name (PROG).
say() { printf '%s: %s\n' "$PROG" "$*" >&2; }
# usage_error MESSAGE: say it, with where help is, and exit 2 (every script's usage code).
usage_error() {
	say "$* (try --help)"
	exit 2
}

# host_arch: this machine's architecture, in the names --arch takes.
host_arch() {
	case $(uname -m) in
	x86_64 | amd64) echo x86_64 ;;
	aarch64 | arm64) echo aarch64 ;;
	riscv64) echo riscv64 ;;
	*) uname -m ;;
	esac
}

# The architectures --arch takes, as an error names them.
ARCHES='x86_64, aarch64 or riscv64'

# arch_set ARCH: what ARCH is to the scripts, as variables; status 1 for one not in ARCHES.
#   triple   the Rust target of its uring-repro build (empty: this machine's own)
#   console  the guest's serial console under QEMU
#   machine  QEMU's -M (empty: QEMU's default); bios: its -bios (empty: none)
#   karch    the kernel's ARCH=; kimage: the image its build leaves, under the objdir
arch_set() {
	case $1 in
	x86_64)
		triple="" console=ttyS0 machine="" bios=""
		karch=x86 kimage=arch/x86/boot/bzImage
		;;
	aarch64)
		triple=aarch64-unknown-linux-musl console=ttyAMA0 machine=virt bios=""
		karch=arm64 kimage=arch/arm64/boot/Image
		;;
	riscv64)
		# -bios default: QEMU's OpenSBI runs in M-mode and enters the kernel.
		triple=riscv64gc-unknown-linux-gnu console=ttyS0 machine=virt bios=default
		karch=riscv kimage=arch/riscv/boot/Image
		;;
	*) return 1 ;;
	esac
}
