#!/bin/sh
# boot-point.sh: one fresh boot of a kernel under QEMU, one point. It writes an initramfs
# with uring-repro's own `initramfs` command (the run options baked in), boots IMAGE with it,
# and keeps the report the guest's /init prints on the console, in the form
# `uring-repro compare` reads: the `# uring-repro` banner, the facts, the table, the summary
# and checks lines. Kernel log lines, the final `uring-repro: exit N` line and CRs are
# stripped. Exits with the run's own code.
#
# POSIX sh (checked with dash). Needs qemu-system-ARCH and the usual POSIX tools (plus
# timeout(1) and mktemp(1)).
set -eu

PROG=boot-point.sh
# Defaults, named so --help and the code agree.
DEFAULT_TIMEOUT=300 # seconds for the whole boot; a default run takes < 30 s under TCG
DEFAULT_CPUS=1
GUEST_MEM=512M

usage() {
	cat <<EOF
usage: $PROG --kernel IMAGE -o POINT [--arch x86_64|aarch64|riscv64] [--accel kvm|tcg]
                     [--append ARGS] [--cpus N] [--timeout S] [--bin PATH] [--host-bin PATH]
                     [--cost SYSTEM.MAP] [-- RUN-OPTIONS]

Boots IMAGE under QEMU with uring-repro as /init and writes its report to POINT, which
\`uring-repro compare\` reads. RUN-OPTIONS (those of \`uring-repro run\`) are baked into the
initramfs and checked before anything boots.

  --kernel IMAGE   the kernel to boot (bzImage/vmlinuz; riscv64: the Image/vmlinux)
  -o POINT         where the report goes (never overwritten)
  --arch A         the guest's architecture (default: this machine's, $(host_arch))
  --accel kvm|tcg  QEMU's accelerator (default tcg: KVM must be asked for, as a /dev/kvm
                   that exists may still not boot a kernel; TCG timings are not evidence)
  --append ARGS    more kernel parameters (words after a \`--\` in them reach /init and win
                   over the baked RUN-OPTIONS)
  --cpus N         guest CPUs (default $DEFAULT_CPUS)
  --timeout S      seconds before the boot counts as hung (default $DEFAULT_TIMEOUT)
  --bin PATH       the uring-repro to boot (default: this checkout's release build for the
                   arch, target/release/uring-repro or target/TRIPLE/release/uring-repro)
  --host-bin PATH  the uring-repro that runs here to write the initramfs (default: --bin
                   when the arch is this machine's, else target/release/uring-repro)
  --cost MAP       count the kernel's instructions inside the measured rounds with a TCG
                   plugin and add them to POINT, per function of this System.map, as
                   \`# cost:\` lines (scripts/cost.sh, docs/cost.md; x86_64, one vCPU)
  -h, --help       this text

exit: the run's own code (0 pass, 1 a check failed, 2 usage, 4 skip, 130 interrupted);
      2 also for a usage error here or an existing POINT; 124 the boot timed out;
      125 QEMU could not start or no report came back.
EOF
}

say() { printf '%s: %s\n' "$PROG" "$*" >&2; }
usage_error() {
	say "$* (try --help)"
	exit 2
}

# This machine's architecture, in the names --arch takes.
host_arch() {
	case $(uname -m) in
	x86_64 | amd64) echo x86_64 ;;
	aarch64 | arm64) echo aarch64 ;;
	riscv64) echo riscv64 ;;
	*) uname -m ;;
	esac
}

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(dirname "$HERE")

kernel="" point="" arch=$(host_arch) accel=tcg append="" cpus=$DEFAULT_CPUS
timeout_s=$DEFAULT_TIMEOUT bin="" host_bin="" cost_map="" cost_plugin=""
while [ $# -gt 0 ]; do
	case $1 in
	--)
		shift
		break
		;;
	-h | --help)
		usage
		exit 0
		;;
	--kernel | -o | --arch | --accel | --append | --cpus | --timeout | --bin | --host-bin | --cost)
		[ $# -ge 2 ] || usage_error "$1 needs a value"
		case $1 in
		--kernel) kernel=$2 ;;
		-o) point=$2 ;;
		--arch) arch=$2 ;;
		--accel) accel=$2 ;;
		--append) append=$2 ;;
		--cpus) cpus=$2 ;;
		--timeout) timeout_s=$2 ;;
		--bin) bin=$2 ;;
		--host-bin) host_bin=$2 ;;
		--cost) cost_map=$2 ;;
		esac
		shift 2
		;;
	*) usage_error "unknown argument '$1'" ;;
	esac
done
# What is left are the run options.

[ -n "$kernel" ] || usage_error "--kernel IMAGE is required"
[ -n "$point" ] || usage_error "-o POINT is required"
{ [ -f "$kernel" ] && [ -r "$kernel" ]; } || usage_error "--kernel: not a readable file: $kernel"
if [ -e "$point" ] || [ -L "$point" ]; then
	say "$point: exists (never overwritten)"
	exit 2
fi
case $arch in
x86_64) triple="" console=ttyS0 ;;
aarch64) triple=aarch64-unknown-linux-musl console=ttyAMA0 ;;
riscv64) triple=riscv64gc-unknown-linux-gnu console=ttyS0 ;;
*) usage_error "--arch: x86_64, aarch64 or riscv64, not '$arch'" ;;
esac
case $accel in
kvm | tcg) ;;
*) usage_error "--accel: kvm or tcg, not '$accel'" ;;
esac
case $cpus in
'' | *[!0-9]* | 0*) usage_error "--cpus: a positive number, not '$cpus'" ;;
esac
case $timeout_s in
'' | *[!0-9]* | 0*) usage_error "--timeout: a positive number of seconds, not '$timeout_s'" ;;
esac
if [ -z "$bin" ]; then
	bin=$REPO/target/${triple:+$triple/}release/uring-repro
fi
if [ -z "$host_bin" ]; then
	if [ "$arch" = "$(host_arch)" ]; then host_bin=$bin; else host_bin=$REPO/target/release/uring-repro; fi
fi
for b in "$bin" "$host_bin"; do
	{ [ -f "$b" ] && [ -x "$b" ]; } || usage_error "not an executable file: $b (build it, or name it with --bin/--host-bin)"
done
qemu=qemu-system-$arch
command -v "$qemu" >/dev/null 2>&1 || {
	say "$qemu not found (Debian: qemu-system-x86, qemu-system-arm or qemu-system-misc)"
	exit 125
}

# The machine QEMU emulates or runs, per arch and accelerator.
case $accel in
kvm)
	if [ "$arch" != "$(host_arch)" ]; then
		usage_error "--accel kvm: the guest must be this machine's arch ($(host_arch)), not $arch"
	fi
	{ [ -r /dev/kvm ] && [ -w /dev/kvm ]; } || {
		say "--accel kvm: /dev/kvm is missing or not usable by this user"
		exit 125
	}
	cpu=host
	;;
tcg)
	say "WARNING: TCG, an emulated CPU: this point's timings are NOT evidence of a kernel's speed (only of what it does); use --accel kvm on a box where KVM works, or bare metal"
	case $arch in
	# pauth-impdef: QEMU's architected pointer-auth emulation is slow; this boots ~3x faster.
	aarch64) cpu=max,pauth-impdef=on ;;
	# QEMU's default CPU models (as tests/boot/run.sh boots them).
	*) cpu="" ;;
	esac
	;;
esac
case $arch in
x86_64) machine="" bios="" ;;
aarch64) machine=virt bios="" ;;
# -bios default: QEMU's OpenSBI runs in M-mode and enters the kernel.
riscv64) machine=virt bios=default ;;
esac

WORK=$(mktemp -d "${TMPDIR:-/tmp}/boot-point.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM

# The initramfs: the binary's own writer, so the run options are checked as `run` checks
# them (a bad one is its exit 2 and its message, before anything boots).
rc=0
"$host_bin" initramfs -o "$WORK/initramfs.cpio" --init "$bin" "$@" || rc=$?
case $rc in
0) ;;
2) exit 2 ;;
*)
	say "$host_bin could not write the initramfs (status $rc)"
	exit 125
	;;
esac

# --cost: the counter's -plugin option, once the map, the settings and QEMU are checked.
[ -z "$cost_map" ] || cost_plugin=$("$HERE/cost.sh" plugin --map "$cost_map" --qemu "$qemu" \
	--accel "$accel" --arch "$arch" --cpus "$cpus" --out "$WORK/cost.counts") || exit $?

# panic=-1 with -no-reboot: a panicking guest ends QEMU at once instead of at the timeout.
cmdline="console=$console panic=-1 loglevel=4${append:+ $append}"
start=$(date +%s)
rc=0
# stdin from /dev/null: QEMU must not put a terminal into raw mode.
timeout -k 10 "$timeout_s" "$qemu" ${machine:+-M "$machine"} ${bios:+-bios "$bios"} \
	-accel "$accel" ${cpu:+-cpu "$cpu"} -smp "$cpus" -m "$GUEST_MEM" -nodefaults -nographic \
	-serial stdio -no-reboot -kernel "$kernel" -initrd "$WORK/initramfs.cpio" \
	-append "$cmdline" ${cost_plugin:+-plugin "$cost_plugin"} </dev/null >"$WORK/console.raw" 2>"$WORK/qemu.err" || rc=$?
secs=$(($(date +%s) - start))

# The console as lines: CRs and terminal escapes out; a terminal reset (ESC c, the x86
# firmware's last act) becomes a line break so it does not glue a line to the next.
esc=$(printf '\033')
tr -d '\r' <"$WORK/console.raw" |
	sed "s#${esc}c#\\
#g; s#${esc}\[[0-?]*[ -/]*[@-~]##g; s#${esc}[@-~]##g" >"$WORK/console"

# The run's verdict: the last `uring-repro: exit N` line.
code=$(sed -n 's/^uring-repro: exit \([0-9][0-9]*\)$/\1/p' "$WORK/console" | tail -n 1)
# The report: from the run banner to the verdict, without kernel log lines (`[    1.23]`)
# and without the binary's stderr line(s) (`uring-repro: ...`, shown here instead).
awk '
	/^uring-repro: exit [0-9]+$/ { exit }
	/^# uring-repro / { on = 1 }
	!on { next }
	/^\[ *[0-9]+\.[0-9]+\]/ { next }
	/^uring-repro: / { next }
	{ print }
' "$WORK/console" >"$WORK/point"
grep '^uring-repro: ' "$WORK/console" | grep -v '^uring-repro: exit [0-9]*$' >&2 || true

tail_console() {
	say "last console lines:"
	tail -n 20 "$WORK/console" | sed 's/^/  | /' >&2
	[ -s "$WORK/qemu.err" ] && sed 's/^/  qemu: /' "$WORK/qemu.err" >&2
	return 0
}
if [ -z "$code" ]; then
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		say "timed out after ${timeout_s}s with no verdict from the guest"
		tail_console
		exit 124
	fi
	say "no report came back (QEMU status $rc after ${secs}s)"
	tail_console
	exit 125
fi
if [ ! -s "$WORK/point" ]; then
	say "the run ended with exit $code after ${secs}s but printed no report; $point not written"
	[ "$code" -ne 0 ] || exit 125
	exit "$code"
fi
if [ -n "$cost_plugin" ] && [ "$code" -eq 0 ]; then
	"$HERE/cost.sh" lines --map "$cost_map" --counts "$WORK/cost.counts" \
		--point "$WORK/point" >"$WORK/cost.lines" || exit $?
	cat "$WORK/cost.lines" >>"$WORK/point"
elif [ -n "$cost_plugin" ]; then
	say "no # cost: lines: the run ended with exit $code"
fi
# noclobber: a POINT that appeared meanwhile is not overwritten either.
if ! (set -C && cat "$WORK/point" >"$point") 2>/dev/null; then
	say "$point: exists or cannot be created (never overwritten)"
	exit 2
fi
say "$point: $(wc -l <"$point") lines, exit $code, boot to power-off ${secs}s ($accel, $arch)"
exit "$code"
