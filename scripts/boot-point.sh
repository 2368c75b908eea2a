#!/bin/sh
# boot-point.sh: one fresh boot of a kernel under QEMU, one point. It writes an initramfs
# with uring-repro's own `initramfs` command (the run options baked in), boots IMAGE with it,
# captures the console, and hands it to uring-repro's `points` command, which keeps the
# report the guest's /init printed there, in the form `uring-repro compare` reads (the
# banner, the facts, the table, the summary and checks lines; no kernel log lines, no
# verdict line, no CRs), adds how the point was made (`# boot=`, the image's SHA-256, with
# --cost the `# cost:` lines) and writes POINT whole or not at all, never over anything. The
# binary is the one reader of what it printed: this script builds nothing of its own from
# the console. Exits with the run's own code. With the run options of a suite (`-- suite
# [--profiles LIST] ...`), POINT is a directory: one point per item, each as a run of its
# own would have made it, and suite.txt, the suite's lines per item (a skipped item is
# there, with its cause). Ctrl-C, SIGTERM or SIGHUP stop QEMU at once and end it with 130;
# whatever ends it, even SIGKILL, QEMU dies with it and the temporary files go
# (scripts/common.sh, "Lifetime").
# Ctrl-C does not reach one started with SIGINT ignored (a script's background job): it
# says so on a terminal; SIGTERM or SIGHUP then.
#
# Each boot has an identity of its own, drawn here (a fresh UUID): the initramfs carries it
# as the file /uring-repro.boot_id (`initramfs --boot-id`), which /init reads and the point
# states as its boot_id (the kernel's own boot id repeats: on the instruction clock, with
# the guest's date fixed, every boot of one image draws the same). Never on the kernel
# command line, which the kernel mixes into its random pool: a word that differs from boot
# to boot would make every boot with two vCPUs schedule differently.
#
# --accel icount runs TCG on QEMU's instruction clock (-icount shift=0,sleep=off): the
# guest's clocks advance one nanosecond per guest instruction, so the point's ns per pair is
# guest instructions per pair, identical boot to boot (docs/reproduction.md). The kernel
# command line then carries URING_REPRO_TIMEBASE=icount, which the kernel hands /init as an
# environment word and the banner states as timebase=icount.
#
# POSIX sh (checked with dash). Needs qemu-system-ARCH and the usual POSIX tools (plus
# timeout(1), mktemp(1) and util-linux's setpriv(1)).
set -eu

PROG=boot-point.sh
# Defaults, named so --help and the code agree.
DEFAULT_TIMEOUT=300 # seconds for the whole boot; a default run takes < 30 s under TCG
DEFAULT_CPUS=1
GUEST_MEM=512M
# --accel icount: QEMU's instruction clock. shift=0: 1 ns of guest time per instruction;
# sleep=off: an idle vCPU jumps to its next timer deadline instead of waiting in host time;
# single-threaded TCG (icount requires it). The environment word tells /init.
ICOUNT_OPTS=shift=0,sleep=off,align=off
ICOUNT_ENV=URING_REPRO_TIMEBASE=icount
# The x86_64 CPU model, named so a point does not depend on QEMU's default one (the kernel
# picks its code paths, and so its instruction counts, by the CPU's features).
ICOUNT_X86_CPU=qemu64
# Every guest instruction counts, whoever runs it, so nothing else may run during the rounds
# and nothing may vary between boots. norandmaps: user-space addresses fixed (without it
# the point means of five boots spread over 2 instructions per pair). cryptomgr.notests=1:
# a distribution kernel's crypto self-tests (RSA, DH) still run in kthreads for about a
# second of guest time after /init starts, and take whole ticks from the run (the steps of
# 4 M instructions, docs/reproduction.md); a kernel without the crypto manager ignores it.
ICOUNT_APPEND="norandmaps cryptomgr.notests=1"
# The environment word that would give /init a boot's identity (refused in --append: the
# identity is each boot's own, and goes in the initramfs, a UUID, the same length every
# boot, so that it moves nothing the guest does).
BOOT_ID_ENV=URING_REPRO_BOOT_ID
# The guest's date (the CMOS RTC, which the kernel reads once at boot) is fixed and follows
# the instruction clock. QEMU's default is the host's date, and the kernel mixes the date it
# reads into its random pool: with two vCPUs or more the scheduler draws from that pool to
# decide whether an idle CPU pulls work (newidle balancing, sched_rng), so each boot
# schedules differently and its points differ (ten boots of the suite: s0 by 0.17%, z0 by
# 4.3%). With the date fixed (base=) and counted in guest time (clock=vm: with clock=host
# the second read still depends on how long QEMU took to get there), every boot draws the
# same numbers (docs/smp-icount.md). June, not January: converting a January or February
# date takes the kernel other instructions, which moves one vCPU's points (l0 by 174 a
# ring, 3.7%) from those a host date in March to December gives; a June date keeps them. The
# guest's boot_id is then the same every boot: a boot's identity cannot come from its
# random pool, nor from anything on the kernel command line, which it mixes in as well: it
# comes in the initramfs. --rtc-date names another date: another seed, so with two vCPUs
# another schedule of the same image, exact as well (ab.sh --draws boots several).
ICOUNT_DATE=2024-06-01 ICOUNT_RTC_CLOCK=clock=vm

usage() {
	cat <<EOF
usage: $PROG --kernel IMAGE -o POINT [--arch x86_64|aarch64|riscv64]
                     [--accel kvm|tcg|icount] [--append ARGS] [--cpus N] [--timeout S]
                     [--bin PATH] [--host-bin PATH] [--check] [--cost SYSTEM.MAP]
                     [--events LIST] [--rtc-date DATE] [-- RUN-OPTIONS]
       $PROG --kernel IMAGE -o DIR [options] -- suite [--profiles LIST] [RUN-OPTIONS]

Boots IMAGE under QEMU with uring-repro as /init and writes its report to POINT, which
\`uring-repro compare\` reads. RUN-OPTIONS (those of \`uring-repro run\`) are baked into the
initramfs and checked before anything boots. With \`suite\` first, the boot runs every item
of LIST (\`uring-repro suite\`) and DIR, a new directory, gets one point per item that
printed one, ITEM.txt (\`s0-shared.txt\` for s0:shared), and suite.txt, the suite's line
per item (exit code, pass, skip and why, fail) and its counts. Every boot gets an identity
of its own, a fresh UUID (the file /uring-repro.boot_id of its initramfs, not a word of
the kernel command line), which its points state as their boot_id; every point ends with
how QEMU booted and the image's SHA-256.

  --kernel IMAGE   the kernel to boot (bzImage/vmlinuz; riscv64: the Image/vmlinux)
  -o POINT         where the report goes (never overwritten); a suite's: a directory
  --arch A         the guest's architecture (default: this machine's, $(host_arch))
  --accel A        QEMU's accelerator (default tcg: KVM must be asked for, as a /dev/kvm
                   that exists may still not boot a kernel; TCG timings are not evidence);
                   icount: TCG on the instruction clock (-icount $ICOUNT_OPTS),
                   the point counts guest instructions per pair, exactly, not time
  --append ARGS    more kernel parameters (words after a \`--\` in them reach /init and win
                   over the baked RUN-OPTIONS)
  --cpus N         guest CPUs (default $DEFAULT_CPUS)
  --timeout S      seconds before the boot counts as hung (default $DEFAULT_TIMEOUT)
  --bin PATH       the uring-repro to boot (default: this checkout's release build for the
                   arch, target/release/uring-repro or target/TRIPLE/release/uring-repro)
  --host-bin PATH  the uring-repro that runs here to write the initramfs (default: --bin
                   when the arch is this machine's, else target/release/uring-repro)
  --check          check everything that does not need IMAGE (the arguments, the run
                   options, QEMU and its accelerator, POINT's directory) and exit 0
                   without booting; IMAGE need not exist yet (a bisect step runs this
                   before it builds)
  --cost MAP       count the guest's instructions inside the measured rounds' timed spans
                   with a TCG plugin and add them to POINT, per function of this
                   System.map, as \`# cost:\` lines (docs/cost.md; x86_64; more than one
                   vCPU under --accel icount only; --check checks it too)
  --events LIST    with --cost: the kernel functions whose entries inside the spans are
                   counted, NAME:NAME:..., or none (default: scripts/cost.sh --help's
                   list, docs/cost.md, "Events")
  --rtc-date DATE  under --accel icount: the guest's date, YYYY-MM-DD (default
                   $ICOUNT_DATE); with two vCPUs or more another date seeds another
                   schedule, each exact (docs/smp-icount.md)
  -h, --help       this text

exit: the run's own code (0 pass, 1 a check failed, 2 usage, 4 skip, 130 interrupted;
      a suite's: 0 every item that ran passed, 1 one failed, 4 every one skipped);
      2 also for a usage error here, an existing POINT or one that cannot be written
      (its directory, checked before the boot, or the write itself: nothing is left at
      POINT); 124 the boot timed out; 125 QEMU is missing, lacks the accelerator, could
      not start, no report came back, an icount point's banner does not say so, or
      setpriv is missing; 130 also when this script is interrupted (SIGINT, SIGTERM,
      SIGHUP): QEMU stopped, nothing left.
EOF
}

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(dirname "$HERE")
# say, usage_error, opt_value, read_options, the lifetime, host_arch, arch_set: what the
# scripts share.
# shellcheck source=common.sh
. "$HERE/common.sh"

kernel="" point="" arch=$(host_arch) accel=tcg append="" cpus=$DEFAULT_CPUS
timeout_s=$DEFAULT_TIMEOUT bin="" host_bin="" check=0 cost_map="" cost_plugin=""
events="" events_set="" rtc_date="" rtc_date_set=""
option() {
	case $1 in
	--events)
		opt_value events text "$@"
		events_set=1
		;;
	--rtc-date)
		opt_value rtc_date text "$@"
		rtc_date_set=1
		;;
	*) usage_error "unknown argument '$1'" ;;
	esac
}
read_options '
--check     check      flag
--kernel    kernel     path
-o          point      text
--arch      arch       text
--accel     accel      text
--append    append     text
--cpus      cpus       positive
--timeout   timeout_s  positive
--bin       bin        exe
--host-bin  host_bin   exe
--cost      cost_map   file
' "$@"
shift "$OPTIONS_READ"
# What is left are the run options.

# A suite's run options: POINT is a directory of points (typed with a / at its end or not).
suite=0
[ "${1:-}" != suite ] || suite=1
[ "$suite" = 0 ] || [ "$point" = / ] || point=${point%/}
[ -z "$point" ] || opt_value point new_file -o "$point"
[ -n "$kernel" ] || usage_error "--kernel IMAGE is required"
[ -n "$point" ] || usage_error "-o POINT is required"
[ -z "$events_set" ] || [ -n "$cost_map" ] || usage_error "--events: the events are the counter's: with --cost MAP only"
if [ -n "$rtc_date_set" ]; then
	[ "$accel" = icount ] || usage_error "--rtc-date: the guest's date is fixed under --accel icount only"
	case $rtc_date in
	[12][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]) [ "$(date -u -d "$rtc_date" +%F 2>/dev/null)" = "$rtc_date" ] ||
		usage_error "--rtc-date: no such date: $rtc_date" ;;
	*) usage_error "--rtc-date: a date, YYYY-MM-DD, not '$rtc_date'" ;;
	esac
fi
[ "$check" = 1 ] || { [ -f "$kernel" ] && [ -r "$kernel" ]; } ||
	usage_error "--kernel: not a readable file: $kernel"
# The timebase is the accelerator's to state: a hand-set word would make a TCG point claim
# to count instructions; the boot's identity is each boot's own.
case " $append " in *[[:space:]]URING_REPRO_TIMEBASE=*)
	usage_error "--append: URING_REPRO_TIMEBASE is set by --accel icount, not by hand"
	;;
esac
case " $append " in *[[:space:]]$BOOT_ID_ENV=*)
	usage_error "--append: $BOOT_ID_ENV is drawn for each boot, not set by hand"
	;;
esac
arch_set "$arch" || usage_error "--arch: $ARCHES, not '$arch'"
case $accel in
kvm | tcg | icount) ;;
*) usage_error "--accel: kvm, tcg or icount, not '$accel'" ;;
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
accel_opts=$accel icount="" cpu="" rtc=""
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
tcg | icount)
	# More than one vCPU under plain TCG: one host thread each (MTTCG), so the guest's CPUs
	# really run in parallel, as a race needs. QEMU's default where the guest's memory model
	# allows it; named, so the point says so and a QEMU that cannot do it refuses.
	[ "$accel" = icount ] || [ "$cpus" -eq 1 ] || accel_opts=tcg,thread=multi
	case $arch in
	# pauth-impdef: QEMU's architected pointer-auth emulation is slow; this boots ~3x faster.
	aarch64) cpu=max,pauth-impdef=on ;;
	# QEMU's default CPU models (as tests/boot/run.sh boots them); named under icount.
	x86_64) [ "$accel" = tcg ] || cpu=$ICOUNT_X86_CPU ;;
	esac
	;;
esac
if [ "$accel" = icount ]; then
	accel_opts=tcg,thread=single icount=$ICOUNT_OPTS rtc=base=${rtc_date:-$ICOUNT_DATE}T00:00:00,$ICOUNT_RTC_CLOCK
	# Whether this QEMU has TCG with the instruction clock: a machine-less start that its
	# monitor quits at once (about 0.1 s). QEMU's own complaint names what is missing.
	if ! probe=$(echo quit | "$qemu" -M none -accel "$accel_opts" -icount "$icount" -nodefaults \
		-display none -monitor stdio 2>&1 >/dev/null); then
		say "--accel icount: $qemu cannot run TCG on the instruction clock ($(printf '%s' "$probe" |
			grep -v 'warning:' | head -n 1))"
		exit 125
	fi
fi
# From here on, whatever ends the script (Ctrl-C and SIGKILL too) stops QEMU and removes
# what was made for the boot (common.sh, lifetime).
lifetime_begin boot-point || exit 125
# POINT's directory, proven writable now rather than after the boot: a file made there
# and removed (`points` writes the point beside POINT and publishes it at the end).
pdir=$(dirname "$point")
temp_file probe "$pdir/.$(basename "$point").XXXXXX" || probe=""
[ -n "$probe" ] || {
	say "-o: cannot create a file in $pdir (not writable?)"
	exit 2
}
rm -f -- "$probe"

# The boot's identity: the host's, fresh for every boot; the initramfs carries it.
boot_id=$(cat /proc/sys/kernel/random/uuid) || {
	say "cannot draw the boot's identity from /proc/sys/kernel/random/uuid"
	exit 125
}
# The initramfs: the binary's own writer, so the run options are checked as `run` checks
# them (a bad one is its exit 2 and its message, before anything boots).
rc=0
"$host_bin" initramfs -o "$SCRATCH/initramfs.cpio" --init "$bin" --boot-id "$boot_id" "$@" || rc=$?
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
	--accel "$accel" --arch "$arch" --cpus "$cpus" ${events_set:+--events "$events"} \
	--out "$SCRATCH/cost.counts") || exit $?
[ "$check" = 0 ] || {
	say "checked: the arguments, the run options, $qemu -accel $accel_opts, $pdir writable; not booted"
	exit 0
}

case $accel in
icount)
	say "NOTE: icount, QEMU's instruction clock: this point counts guest instructions per pair (user and kernel), exactly and the same every boot. It is evidence of how much work a kernel does per pair, NOT of its speed: a locked instruction, a cache miss and a register move each count one."
	;;
tcg)
	say "WARNING: TCG, an emulated CPU: this point's timings are NOT evidence of a kernel's speed (only of what it does); use --accel kvm on a box where KVM works, or bare metal, or --accel icount to count instructions instead"
	;;
esac
# panic=-1 with -no-reboot: a panicking guest ends QEMU at once instead of at the timeout.
cmdline="console=$console panic=-1 loglevel=4"
[ "$accel" != icount ] || cmdline="$cmdline $ICOUNT_APPEND $ICOUNT_ENV"
# Nothing on it differs from boot to boot (the boot's identity is in the initramfs).
cmdline="$cmdline${append:+ $append}"
start=$(date +%s)
rc=0
# stdin from /dev/null: QEMU must not put a terminal into raw mode.
run_child --timeout "$timeout_s" "$qemu" ${machine:+-M "$machine"} ${bios:+-bios "$bios"} \
	-accel "$accel_opts" ${icount:+-icount "$icount"} ${rtc:+-rtc "$rtc"} ${cpu:+-cpu "$cpu"} -smp "$cpus" -m "$GUEST_MEM" \
	-nodefaults -nographic -serial stdio -no-reboot -kernel "$kernel" -initrd "$SCRATCH/initramfs.cpio" \
	-append "$cmdline" ${cost_plugin:+-plugin "$cost_plugin"} </dev/null >"$SCRATCH/console.raw" \
	2>"$SCRATCH/qemu.err" || rc=$?
secs=$(($(date +%s) - start))

# QEMU stopped by the timeout (timeout(1)'s 124, or 137 after its SIGKILL): a console
# without a verdict is then a boot that timed out (124), not one that gave no report (125).
stopped=""
if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then stopped=$timeout_s; fi
# How a point was made, the `# boot=` line after the report.
version=$("$qemu" --version | sed -n '1s/^QEMU emulator version \([^ ]*\).*/\1/p')
boot_line=$(printf '%s %s -accel %s%s%s%s -smp %s -m %s' "$qemu" "${version:-unknown}" \
	"$accel_opts" "${icount:+ -icount $icount}" "${rtc:+ -rtc $rtc}" "${cpu:+ -cpu $cpu}" "$cpus" "$GUEST_MEM")
suite_opt="" icount_opt=""
[ "$suite" = 0 ] || suite_opt=--suite
[ "$accel" != icount ] || icount_opt=--icount
# The point (a suite's directory), from the console, by uring-repro, which printed it: its
# stderr lines and its judgement on stderr, on stdout what it wrote; its exit code is this
# script's (the run's own, or why there is no point).
code=0
wrote=$("$host_bin" points --console "$SCRATCH/console.raw" -o "$point" $suite_opt $icount_opt \
	--boot "$boot_line" --image "$kernel" ${stopped:+--timed-out "$stopped"} \
	${cost_plugin:+--counts "$SCRATCH/cost.counts" --map "$cost_map"}) || code=$?
if [ -n "$wrote" ]; then
	say "$wrote, boot to power-off ${secs}s ($accel, $arch)"
elif [ "$rc" -ne 0 ] || [ -s "$SCRATCH/qemu.err" ]; then
	# No point, and QEMU failed or had something to say.
	say "QEMU: status $rc after ${secs}s ($accel, $arch)"
	[ ! -s "$SCRATCH/qemu.err" ] || sed 's/^/  qemu: /' "$SCRATCH/qemu.err" >&2
fi
exit "$code"
