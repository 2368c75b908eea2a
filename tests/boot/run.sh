#!/usr/bin/env bash
# Boot tests: run the static uring-repro binary as /init of a one-file initramfs under QEMU
# (TCG) on real Debian kernels, and check what it prints on the console and its exit code.
#
# Why: uring-repro's job is to run as PID 1 on bare boxes. Only a real boot proves the PID-1
# duties (argv from the kernel command line, console fds, power-off instead of exit) and the
# kernel-dependent verdicts (6.12 has the io_uring futex opcodes, 6.1 does not; io_uring can
# be disabled by sysctl).
#
# Each initramfs is written by the binary's own `initramfs` command, run by the binary of this
# machine's arch (--bin-x86_64 here) with `--init` naming the guest's binary, so one host
# build writes the archives of all three architectures. scripts/boot-point.sh is tested here
# too: a boot into a point file that `uring-repro compare` must read.
#
# Options: --help. Output: one TAP-like line per case, then "N passed, N failed, N skipped".
# Exit status: 0 iff no case failed and one passed; 1 a case failed, or the harness itself
# cannot run; 2 on a usage error; 4 every case skipped; 130 interrupted. With CI set in the
# environment a skipped case counts as failed: CI never passes untested.
set -Eeuo pipefail
# Output helpers, results (a skip fails under CI), apt, the ERR trap, HERE and REPO.
# shellcheck source=../lib/harness.sh
. "$(dirname -- "${BASH_SOURCE[0]}")/../lib/harness.sh"

# Defaults, named so --help and the code agree.
readonly DEFAULT_CACHE=${URING_REPRO_BOOT_CACHE:-/var/tmp/uring-repro-boot}
readonly DEFAULT_TIMEOUT=120 # seconds per boot; a healthy case takes < 10 s under TCG here
readonly LISTS_MAX_AGE_MIN=360 # refresh the private apt lists when older than this
readonly GUEST_MEM=512M
readonly TAIL_LINES=30 # console lines shown for a failed case

usage() {
	cat <<EOF
usage: $0 --bin-x86_64 PATH [--bin-aarch64 PATH] [--bin-riscv64 PATH] [options]

  --bin-x86_64 PATH   static x86_64 uring-repro to boot as /init (required for x86_64 cases)
  --bin-aarch64 PATH  static aarch64 uring-repro (optional: without it the aarch64 case SKIPs)
  --bin-riscv64 PATH  static riscv64 uring-repro (optional: without it the riscv64 cases SKIP)
  --only NAME         run only this case (repeatable); see --list
  --keep DIR          keep console logs (NAME.log), QEMU command lines (NAME.cmd) and the
                      initramfs images in DIR (default: a temporary dir, removed at exit)
  --cache DIR         kernel and apt-state cache (default: $DEFAULT_CACHE;
                      env URING_REPRO_BOOT_CACHE)
  --timeout SECS      per-boot timeout (default: $DEFAULT_TIMEOUT)
  --refresh           run the private apt-get update even if the lists are fresh
  --list              print the case names and exit
  -h, --help          this text
EOF
}

# ---------------------------------------------------------------------------------------
# Cases. One row each: name, guest arch, kernel slot, cmdline words before "--", argv words
# after "--" ("" = no "--" at all), expected exit code, EREs one per line, each of which some
# console line must match ("" = none), and the run options baked into the initramfs
# (optional; "" = none). Rows added with add_point_case run scripts/boot-point.sh instead:
# the argv words are its RUN-OPTIONS, the exit code is its own, and the EREs must match
# lines of the point it wrote.
CASE_NAMES=() CASE_ARCH=() CASE_KERNEL=() CASE_PRE=() CASE_ARGS=() CASE_EXIT=() CASE_LINE=()
CASE_BAKED=() CASE_KIND=()
add_case() {
	CASE_NAMES+=("$1") CASE_ARCH+=("$2") CASE_KERNEL+=("$3") CASE_PRE+=("$4")
	CASE_ARGS+=("$5") CASE_EXIT+=("$6") CASE_LINE+=("$7") CASE_BAKED+=("${8:-}") CASE_KIND+=(boot)
}
add_point_case() {
	add_case "$@"
	CASE_KIND[${#CASE_KIND[@]} - 1]=point
}
add_case x86_64-6.12-smoke x86_64 x86_64-6.12 "" "--smoke" 0 '-> PASS$'
add_case x86_64-6.12-short-run x86_64 x86_64-6.12 "" "--cycles 64 --rounds 3 --warmups 1" 0 '-> PASS$'
# 6.1 lacks IORING_OP_FUTEX_WAIT: the probe must say so and the run must skip (exit 4).
add_case x86_64-6.1-no-futex-ops x86_64 x86_64-6.1 "" "--smoke" 4 'FUTEX_WAIT'
add_case x86_64-6.12-io_uring-disabled x86_64 x86_64-6.12 "sysctl.kernel.io_uring_disabled=2" \
	"--smoke" 4 'io_uring unavailable.*EPERM|EPERM.*io_uring unavailable'
# A usage error must still power the box off (QEMU exits by itself, no panic).
add_case x86_64-6.12-bogus-arg x86_64 x86_64-6.12 "" "--bogus-arg" 2 ''
add_case aarch64-6.12-smoke aarch64 aarch64-6.12 "" "--smoke" 0 '-> PASS$'
add_case aarch64-6.1-no-futex-ops aarch64 aarch64-6.1 "" "--smoke" 4 'FUTEX_WAIT'
# --tsv on the initramfs (ramfs): the rows must reach the console before power-off.
add_case x86_64-6.12-tsv-on-initramfs x86_64 x86_64-6.12 "" "--smoke --tsv /rows.tsv" 0 \
	'^# tsv: 1	[^	]+	[^	]+	smoke	s0_wait_wake	smoke	0	'
# The second regression's workload with its waiter thread, under a real kernel as PID 1.
add_case x86_64-6.12-pollwake x86_64 x86_64-6.12 "" "--profile pollwake --smoke" 0 '-> PASS$'
# --witness: the kernel's own account (ftrace instance: tracepoints, function tracer) must
# match the run's counts, from both sources, and the instance must be gone afterwards.
# io_req_track_inflight (the helper 079afb081c42 calls from io_futex_prep) cannot be
# counted on 6.12.117: it is not a traceable function there (no symbol: inlined, or the
# commit is absent; where it is a symbol, the kernel's `inline` makes it notrace).
WITNESSED=$'-> PASS$\n witness=on witness_sources=events\+functions\n^# witness: events .* -> MATCH$\n^# witness: functions .* -> MATCH$\n^# witness: removed /sys/kernel/tracing/instances/uring-repro-1 tracing=off$'
add_case x86_64-6.12-witness-s0 x86_64 x86_64-6.12 "" "--trace --witness" 0 \
	"$WITNESSED"$'\n^# witness: events FUTEX_WAIT=512 FUTEX_WAKE=512 complete=1024 res0=512 res1=512 async=0 overflow=0 other_cpu=0 -> MATCH$\n^# witness: functions io_futex_prep=1024 io_futex_wait=512 io_futex_wake=512 io_futex_complete=512 io_req_track_inflight=not_traceable\((notrace|inlined)\) -> MATCH$'
add_case x86_64-6.12-witness-c0 x86_64 x86_64-6.12 "" "--profile c0 --trace --witness" 0 \
	"$WITNESSED"$'\n^# witness: events FUTEX_WAIT=512 ASYNC_CANCEL=512 complete=1024 res-125=512 res1=512 '
add_case x86_64-6.12-witness-v0 x86_64 x86_64-6.12 "" "--profile v0 --trace --witness" 0 \
	"$WITNESSED"$'\n^# witness: events FUTEX_WAKE=256 FUTEX_WAITV=128 complete=384 res1=128 res0=128 res3=128 '
add_case x86_64-6.12-witness-pollwake x86_64 x86_64-6.12 "" "--profile pollwake --trace --witness" 0 \
	"$WITNESSED"$'\n^# witness: events MSG_RING=2048 complete=4096 res0=2049 res_varied=2047 '
# The hot paths: each profile's events and its path's functions, every one traceable on
# 6.12. a0's NOPs run in io-wq workers, threads of the process that are no forks: their
# completions and functions are counted only because the instance follows every thread
# when tracing starts.
add_case x86_64-6.12-witness-a0 x86_64 x86_64-6.12 "" "--profile a0 --trace --witness" 0 \
	"$WITNESSED"$'\n^# witness: events NOP=512 complete=512 res0=512 async=512 overflow=0 other_cpu=0 -> MATCH$\n^# witness: functions io_nop_prep=512 io_queue_iowq=512 io_wq_enqueue=512 io_wq_submit_work=512 io_nop=512 -> MATCH$'
add_case x86_64-6.12-witness-r0 x86_64 x86_64-6.12 "" "--profile r0 --trace --witness" 0 \
	"$WITNESSED"$'\n^# witness: events READ=512 WRITE=512 complete=1024 res16=1024 async=0 '
add_case x86_64-6.12-witness-p0 x86_64 x86_64-6.12 "" "--profile p0 --trace --witness" 0 \
	"$WITNESSED"$'\n^# witness: functions io_poll_add_prep=512 io_poll_add=512 io_poll_wake=512 io_poll_task_func=512 io_write=512 -> MATCH$'
add_case x86_64-6.12-witness-t0 x86_64 x86_64-6.12 "" "--profile t0 --trace --witness" 0 \
	"$WITNESSED"$'\n^# witness: events NOP=512 TIMEOUT=512 complete=1024 res0=1024 async=0 '
add_case x86_64-6.12-witness-m0 x86_64 x86_64-6.12 "" "--profile m0 --trace --witness" 0 \
	"$WITNESSED"$'\n^# witness: events MSG_RING=512 complete=1024 res0=513 res_varied=511 '
add_case x86_64-6.12-witness-u0 x86_64 x86_64-6.12 "" "--profile u0 --trace --witness" 0 \
	"$WITNESSED"$'\n^# witness: events SEND=512 RECV=512 complete=1024 res16=1024 async=0 '
add_case x86_64-6.12-witness-k0 x86_64 x86_64-6.12 "" "--profile k0 --trace --witness" 0 \
	"$WITNESSED"$'\n^# witness: functions io_queue_next=496 io_req_task_submit=496 io_nop=512 -> MATCH$'
# Where scheduling is the cost: every one of b0's SPLICEs asleep in its worker once
# (pipe_wait_readable), no worker made in the rounds; g0's nine punted requests a cycle, each
# run once in a worker; q0's NOPs submitted by its SQ thread, which shares the one CPU.
add_case x86_64-6.12-witness-b0 x86_64 x86_64-6.12 "" "--profile b0 --trace --witness" 0 \
	"$WITNESSED"$'\n^# witness: functions io_splice_prep=512 io_splice=512 io_wq_submit_work=512 pipe_wait_readable=512 io_write=512 io_read=512 create_io_worker=0 -> MATCH$'
add_case x86_64-6.12-witness-g0 x86_64 x86_64-6.12 "" "--profile g0 --trace --witness" 0 \
	"$WITNESSED"$'\n^# witness: events NOP=16 READ=16 WRITE=16 FSYNC=16 FALLOCATE=16 FADVISE=16 MADVISE=16 STATX=16 FTRUNCATE=16 SYNC_FILE_RANGE=16 complete=160 res0=128 res512=32 async=144 '
add_case x86_64-6.12-witness-q0 x86_64 x86_64-6.12 "" "--profile q0 --trace --witness" 0 \
	"$WITNESSED"$'\n^# witness: events NOP=512 complete=512 res0=512 async=0 overflow=0 other_cpu=0 -> MATCH$'
# Warm-ups and every round count: the expectation comes from the run's own counts.
add_case x86_64-6.12-witness-rounds x86_64 x86_64-6.12 "" "--cycles 8 --rounds 3 --warmups 2 --witness" 0 \
	"$WITNESSED"$'\n^# witness: events FUTEX_WAIT=1280 FUTEX_WAKE=1280 complete=2560 '
# A run too long for the witness's buffer is a skip naming why; =optional runs it anyway.
add_case x86_64-6.12-witness-too-long x86_64 x86_64-6.12 "" "--witness" 4 \
	'this run cannot be witnessed: the run would record about'
add_case x86_64-6.12-witness-optional x86_64 x86_64-6.12 "" "--smoke --cycles 20000 --witness=optional" 0 \
	$'witness=unavailable witness_sources=none\n^# witness: unavailable: the run would record'
# 6.1 has no futex opcodes: the probe's skip comes first, as without --witness.
add_case x86_64-6.1-witness x86_64 x86_64-6.1 "" "--trace --witness" 4 'FUTEX_WAIT'
# riscv64: the third architecture (Debian's kernel from the suite after bookworm). The smoke
# also proves the clock came from the vDSO (__vdso_clock_gettime@LINUX_4.15).
add_case riscv64-6.12-smoke riscv64 riscv64-6.12 "" "--smoke" 0 $'-> PASS$\n clock=vdso timebase=wall$'
add_case riscv64-6.12-short-run riscv64 riscv64-6.12 "" "--cycles 64 --rounds 3 --warmups 1" 0 '-> PASS$'
add_case riscv64-6.12-pollwake riscv64 riscv64-6.12 "" "--profile pollwake --smoke" 0 '-> PASS$'
add_case riscv64-6.12-bogus-arg riscv64 riscv64-6.12 "" "--bogus-arg" 2 ''
# Options baked into the initramfs (`initramfs -o FILE OPTIONS`), nothing after "--": /init
# runs the baked ones (the banner shows their shape). With words after "--" those win.
readonly SHORT_RUN="--cycles 64 --rounds 3 --warmups 1"
add_case x86_64-6.12-baked x86_64 x86_64-6.12 "" "" 0 \
	$'-> PASS$\n mode=point \n cycles=64 warmups=1 rounds=3 ' "$SHORT_RUN"
add_case x86_64-6.12-cmdline-wins x86_64 x86_64-6.12 "" "--smoke" 0 \
	$'-> PASS$\n mode=smoke \n cycles=2 warmups=0 rounds=1 ' "$SHORT_RUN"
add_case riscv64-6.12-baked riscv64 riscv64-6.12 "" "" 0 \
	$'-> PASS$\n cycles=64 warmups=1 rounds=3 ' "$SHORT_RUN"
# The kernel hands /init every bare word it does not know (nokaslr) before the words after
# "--": skipped, each named, and never taken for arguments (the baked ones still run).
add_case x86_64-6.12-nokaslr-baked x86_64 x86_64-6.12 "nokaslr" "" 0 \
	$'-> PASS$\n^# ignored kernel parameter: nokaslr$\n cycles=64 warmups=1 rounds=3 ' "$SHORT_RUN"
add_case x86_64-6.12-nokaslr-args x86_64 x86_64-6.12 "nokaslr" "--smoke" 0 \
	$'-> PASS$\n^# ignored kernel parameter: nokaslr$\n mode=smoke '
# URING_REPRO_TIMEBASE=icount before "--" reaches /init as an environment variable: the
# banner and the unit line state it. (This boot is not on QEMU's instruction clock: the case
# proves the word's way to the run, which states what the booter says.)
add_case x86_64-6.12-timebase-icount x86_64 x86_64-6.12 "URING_REPRO_TIMEBASE=icount" "--smoke" 0 \
	$'-> PASS$\n clock=vdso timebase=icount$\n^# unit=guest_instructions_per_pair \\(QEMU TCG -icount shift=0'
# scripts/boot-point.sh: a point compare reads (and the run's own exit code without one).
add_point_case x86_64-6.12-boot-point x86_64 x86_64-6.12 "" "$SHORT_RUN" 0 \
	$'^# uring-repro .* mode=point \n^mean\t6144\t\n-> PASS$'
add_point_case x86_64-6.1-boot-point-skip x86_64 x86_64-6.1 "" "--smoke" 4 ''
add_point_case riscv64-6.12-boot-point riscv64 riscv64-6.12 "" "$SHORT_RUN" 0 \
	$'^# uring-repro .* kernel=6\.12\.[^ ]*riscv64 \n-> PASS$'
# scripts/bisect-step.sh under a real `git bisect run`: a made-up tree of seven commits, each
# "building" the 6.12 kernel; from the fifth on, the tree's kernel parameters (read by
# --append-from) add BISECT_SLOWER. References: two boots of each. The bisect must name the
# fifth commit, through real boots on QEMU's instruction clock (--accel icount), where the
# points are the same from boot to boot whatever the host's load (plain TCG's were not: a
# loaded host once made two references 43,498 and 21,779 ns/pair). The slowdown is a kernel
# parameter, not a run option: the points of a bisect are of one contract, so an injected
# spin (--inject-ns) in some of them would be refused. This proves the loop, build -> boot
# -> point -> verdict -> git bisect, not a kernel's speed.
# Syscall auditing: about 96 instructions more per s0 pair on Debian's 6.12 (6%).
readonly BISECT_SLOWER=audit=1
add_case x86_64-6.12-git-bisect-run x86_64 x86_64-6.12 "" "$SHORT_RUN" 0 ''
CASE_KIND[${#CASE_KIND[@]} - 1]=bisect

# Kernel slots: Debian meta package (resolved at run time to the image package it pins),
# Debian architecture, and the prefix the image package must have (so a meta package that
# moves to another series is reported instead of silently testing the wrong kernel).
declare -A SLOT_META=(
	[x86_64-6.12]=linux-image-6.12-cloud-amd64
	[x86_64-6.1]=linux-image-cloud-amd64
	[aarch64-6.12]=linux-image-6.12-cloud-arm64
	[aarch64-6.1]=linux-image-cloud-arm64
	[riscv64-6.12]=linux-image-riscv64
)
declare -A SLOT_DEBARCH=([x86_64-6.12]=amd64 [x86_64-6.1]=amd64 [aarch64-6.12]=arm64
	[aarch64-6.1]=arm64 [riscv64-6.12]=riscv64)
declare -A SLOT_SERIES=([x86_64-6.12]=linux-image-6.12. [x86_64-6.1]=linux-image-6.1.
	[aarch64-6.12]=linux-image-6.12. [aarch64-6.1]=linux-image-6.1.
	[riscv64-6.12]=linux-image-6.12.)
# The kernel image in the package's /boot: a compressed vmlinuz, except on riscv64, whose
# package ships the uncompressed Image as vmlinux (QEMU's -kernel boots it as it is).
declare -A DEBARCH_IMAGE=([amd64]=vmlinuz [arm64]=vmlinuz [riscv64]=vmlinux)
# The host's own suites (bookworm) have no riscv64 port: that architecture's private apt
# state gets its own sources, this suite and its security updates, from the mirrors the
# host's sources use. The amd64 and arm64 kernels come from the host's sources.
declare -A DEBARCH_SUITE=([riscv64]=trixie)
# Filled by fetch_kernel: path of the vmlinuz, or the reason there is none.
declare -A SLOT_VMLINUZ=() SLOT_SKIP=()

# ---------------------------------------------------------------------------------------
# Tools. QEMU comes from Debian; install only what is missing so repeated runs stay offline.
# riscv64 (only when --bin-riscv64 is given) needs qemu-system-misc and the OpenSBI firmware.
ensure_tools() {
	local t missing=() pkgs=()
	for t in apt-get apt-cache dpkg-deb tar timeout od stat flock; do
		command -v "$t" >/dev/null || missing+=("$t")
	done
	((${#missing[@]} == 0)) || die "missing base tools: ${missing[*]}"
	command -v qemu-system-x86_64 >/dev/null || pkgs+=(qemu-system-x86)
	command -v qemu-system-aarch64 >/dev/null || pkgs+=(qemu-system-arm)
	if [[ -n ${BIN[riscv64]:-} ]]; then
		command -v qemu-system-riscv64 >/dev/null || pkgs+=(qemu-system-misc)
		[[ $(dpkg-query -W -f '${Status}' opensbi 2>/dev/null) == *' installed' ]] || pkgs+=(opensbi)
	fi
	((${#pkgs[@]} > 0)) || return 0
	apt_install "$WORK/apt-install.log" "${pkgs[@]}" || die "installing ${pkgs[*]} failed"
	for t in qemu-system-x86_64 qemu-system-aarch64 ${BIN[riscv64]:+qemu-system-riscv64}; do
		command -v "$t" >/dev/null || die "$t still missing after install"
	done
}

# ---------------------------------------------------------------------------------------
# Kernels: a private apt state per Debian architecture, and the images (tests/boot/kernels.sh).
# shellcheck source=kernels.sh
. "$HERE/kernels.sh"

# ---------------------------------------------------------------------------------------
# Binaries. Check the ELF machine so a wrong --bin-* fails with a clear reason instead of a
# kernel panic ("No working init found").
declare -A BIN=() BIN_PROBLEM=() INITRD=()
# The binary that runs here and writes every initramfs: the one of this machine's arch.
HOST_ARCH=$(host_arch)
readonly HOST_ARCH
readonly -A ELF_MACHINE=([x86_64]=003e [aarch64]=00b7 [riscv64]=00f3)
check_binary() {
	local arch=$1 path=$2 magic machine
	[[ -f $path && -r $path ]] || { BIN_PROBLEM[$arch]="not a readable file: $path"; return 0; }
	magic=$(od -An -tx1 -N4 -- "$path" | tr -d ' \n')
	machine=$(od -An -tx2 -j18 -N2 -- "$path" | tr -d ' \n')
	if [[ $magic != 7f454c46 ]]; then
		BIN_PROBLEM[$arch]="not an ELF file: $path"
	elif [[ $machine != "${ELF_MACHINE[$arch]}" ]]; then
		BIN_PROBLEM[$arch]="$path is ELF e_machine 0x$machine, not $arch (0x${ELF_MACHINE[$arch]})"
	fi
}

# ---------------------------------------------------------------------------------------
# Boot one case. Sets BOOT_RC (QEMU's status through timeout(1): 124/137 = timeout fired)
# and BOOT_SECS; the console, with \r stripped, is in $WORK/NAME.log.
BOOT_RC=0 BOOT_SECS=0
boot() {
	local name=$1 arch=$2 kernel=$3 initrd=$4 pre=$5 args=$6
	local log=$WORK/$name.log raw=$WORK/$name.raw t0 t1 append
	local -a qemu
	case $arch in
	x86_64)
		qemu=(qemu-system-x86_64 -accel tcg)
		append="console=ttyS0"
		;;
	aarch64)
		# pauth-impdef: QEMU's architected pointer-auth emulation is slow; this boots ~3x faster.
		qemu=(qemu-system-aarch64 -M virt -cpu 'max,pauth-impdef=on' -accel tcg)
		append="console=ttyAMA0"
		;;
	riscv64)
		# -bios default: QEMU's OpenSBI (fw_dynamic) runs in M-mode and enters the kernel.
		qemu=(qemu-system-riscv64 -M virt -bios default -accel tcg)
		append="console=ttyS0"
		;;
	esac
	# panic=-1 + -no-reboot: a panicking guest ends QEMU at once instead of hanging to the
	# timeout; the log still shows the panic.
	append+=" panic=-1 loglevel=4${pre:+ $pre}${args:+ -- $args}"
	qemu+=(-m "$GUEST_MEM" -nodefaults -nographic -serial stdio -no-reboot
		-kernel "$kernel" -initrd "$initrd" -append "$append")
	printf '%q ' timeout -k 10 "$TIMEOUT" "${qemu[@]}" >"$WORK/$name.cmd"
	echo >>"$WORK/$name.cmd"
	t0=$EPOCHREALTIME
	# stdin from /dev/null: QEMU must not put the harness's terminal into raw mode.
	BOOT_RC=0
	timeout -k 10 "$TIMEOUT" "${qemu[@]}" </dev/null >"$raw" 2>&1 || BOOT_RC=$?
	t1=$EPOCHREALTIME
	BOOT_SECS=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
	# Strip \r (serial line endings) and terminal escapes. On x86 the firmware's last line
	# ("Booting from ROM...") ends in a terminal reset (ESC c) instead of a newline, which
	# would glue the guest's first line to it: turn each reset into a line break.
	tr -d '\r' <"$raw" | sed -E 's#\x1bc#\n#g; s#\x1b\[[0-?]*[ -/]*[@-~]##g; s#\x1b[@-~]##g' >"$log"
	rm -f "$raw"
}

# ---------------------------------------------------------------------------------------
# result_fail NAME REASON [LOG]: not ok, with the console that explains it.
result_fail() {
	local name=$1 reason=$2 log=${3:-}
	result_not_ok "$name" "$reason"
	if [[ -n $log && -e $log ]]; then
		# After a panic the last lines are all backtrace; show the lines up to the panic
		# message instead, which hold what PID 1 printed last.
		local upto total
		total=$(wc -l <"$log")
		upto=$(grep -n -m1 'Kernel panic' "$log" | cut -d: -f1) || true
		upto=${upto:-$total}
		printf '#   last %d console lines of %s up to line %d of %d:\n' \
			"$TAIL_LINES" "$name" "$upto" "$total"
		head -n "$upto" "$log" | tail -n "$TAIL_LINES" | sed 's/^/#   | /'
		printf '#   reproduce: %s\n' "$(cat "$WORK/$name.cmd")"
	fi
}

# run_point_case I: scripts/boot-point.sh for case I: its exit code, and the point it wrote
# (the report and nothing else, which `uring-repro compare` reads) when the run passed.
run_point_case() {
	local i=$1 name=${CASE_NAMES[$1]} arch=${CASE_ARCH[$1]} slot=${CASE_KERNEL[$1]}
	local want=${CASE_EXIT[$1]} point=$WORK/${CASE_NAMES[$1]}.point log=$WORK/${CASE_NAMES[$1]}.log
	local rc=0 t0 reasons=() pat
	local -a cmd
	# shellcheck disable=SC2206 # the run options are words
	cmd=(sh "$REPO/scripts/boot-point.sh" --kernel "${SLOT_VMLINUZ[$slot]}" -o "$point"
		--arch "$arch" --accel tcg --timeout "$TIMEOUT" --bin "${BIN[$arch]}"
		--host-bin "${BIN[$HOST_ARCH]}" -- ${CASE_ARGS[$i]})
	printf '%q ' "${cmd[@]}" >"$WORK/$name.cmd"
	echo >>"$WORK/$name.cmd"
	note "boot-point $name: -- ${CASE_ARGS[$i]}"
	rm -f "$point"
	t0=$EPOCHREALTIME
	"${cmd[@]}" >"$log" 2>&1 </dev/null || rc=$?
	BOOT_SECS=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
	((rc == want)) || reasons+=("boot-point.sh exited $rc, expected $want")
	if ((want == 0)); then
		if [[ ! -s $point ]]; then
			reasons+=("no point written")
		else
			[[ $(head -n1 "$point") == '# uring-repro '* ]] || reasons+=("the point does not start with the run banner")
			grep -q $'\r' "$point" && reasons+=("the point has CRs")
			grep -qE '^uring-repro: |^\[ *[0-9]+\.[0-9]+\]' "$point" &&
				reasons+=("the point has a verdict or kernel log line")
			while IFS= read -r pat; do
				if [[ -n $pat ]] && ! grep -qE -- "$pat" "$point"; then
					reasons+=("no point line matches /$pat/")
				fi
			done <<<"${CASE_LINE[$i]}"
			if ! "${BIN[$HOST_ARCH]}" compare "$point" >"$WORK/$name.compare" 2>&1; then
				reasons+=("compare does not read the point: $(tail -n1 "$WORK/$name.compare")")
			fi
		fi
	fi
	# A second run must not overwrite the point (exit 2 before anything boots).
	if [[ -e $point ]]; then
		local again=0
		"${cmd[@]}" >/dev/null 2>&1 </dev/null || again=$?
		((again == 2)) || reasons+=("a second run over the existing point exited $again, not 2")
	fi
	note "$name: ${BOOT_SECS}s, boot-point.sh status $rc"
	judge "$name" "$log" "${reasons[@]}"
}

# run_bisect_case I: a real `git bisect run` of scripts/bisect-step.sh (see the case row).
run_bisect_case() {
	local i=$1 name=${CASE_NAMES[$1]} arch=${CASE_ARCH[$1]} slot=${CASE_KERNEL[$1]}
	local dir=$WORK/$name tree log=$WORK/${CASE_NAMES[$1]}.log rc=0 t0 k first reasons=()
	local -a boot refs=()
	tree=$dir/tree
	rm -rf "$dir" && mkdir -p "$tree" "$dir/points"
	# Absolute: the bisect runs in the tree (a relative --bin there named nothing, and
	# bisect-step.sh fell back to this checkout's build).
	local bin
	bin=$(realpath -- "${BIN[$arch]}")
	# shellcheck disable=SC2206 # the run options are words
	boot=(sh "$REPO/scripts/boot-point.sh" --kernel "${SLOT_VMLINUZ[$slot]}" --arch "$arch"
		--accel icount --timeout "$TIMEOUT" --bin "${BIN[$arch]}" --host-bin "${BIN[$HOST_ARCH]}")
	printf 'see %s (the references, the tree, then git bisect run)\n' "$log" >"$WORK/$name.cmd"
	t0=$EPOCHREALTIME
	{
		# shellcheck disable=SC2086
		for k in 1 2; do
			"${boot[@]}" -o "$dir/good$k.txt" -- ${CASE_ARGS[$i]} && refs+=(--good "$dir/good$k.txt")
			"${boot[@]}" -o "$dir/bad$k.txt" --append "$BISECT_SLOWER" -- ${CASE_ARGS[$i]} &&
				refs+=(--bad "$dir/bad$k.txt")
		done
		git -C "$tree" init -q
		git -C "$tree" config user.email bisect@example.invalid
		git -C "$tree" config user.name bisect
		echo vmlinuz >"$tree/.gitignore"
		for k in 0 1 2 3 4 5 6; do
			if ((k < 4)); then : >"$tree/append"; else printf '%s\n' "$BISECT_SLOWER" >"$tree/append"; fi
			echo "$k" >"$tree/commit"
			git -C "$tree" add -A && git -C "$tree" commit -qm "commit $k"
		done
		first=$(git -C "$tree" rev-parse HEAD~2)
		git -C "$tree" bisect start HEAD HEAD~6
		# shellcheck disable=SC2086,SC2016 # run options are words; the build runs in sh
		(cd "$tree" && BISECT_KERNEL=${SLOT_VMLINUZ[$slot]} git bisect run \
			sh "$REPO/scripts/bisect-step.sh" "${refs[@]}" --build 'cp "$BISECT_KERNEL" vmlinuz' \
			--image vmlinuz --arch "$arch" --accel icount --points "$dir/points" --bin "$bin" \
			--timeout "$TIMEOUT" --append-from append -- ${CASE_ARGS[$i]}) || rc=$?
	} >"$log" 2>&1 </dev/null
	BOOT_SECS=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
	((${#refs[@]} == 8)) || reasons+=("only ${#refs[@]} of 8 reference arguments: a reference boot failed")
	((rc == 0)) || reasons+=("git bisect run exited $rc")
	grep -q "^$first is the first bad commit" "$log" || reasons+=("the bisect did not name commit 4 ($first)")
	n=$(find "$dir/points" -name '*.txt' | wc -l)
	((n >= 2)) || reasons+=("only $n point(s) kept in --points")
	note "$name: ${BOOT_SECS}s for 4 reference boots and $n bisect steps"
	judge "$name" "$log" "${reasons[@]}"
}

# run_case I: boot case I and judge its console.
run_case() {
	local i=$1 name=${CASE_NAMES[$1]} arch=${CASE_ARCH[$1]} slot=${CASE_KERNEL[$1]}
	local want=${CASE_EXIT[$1]} line=${CASE_LINE[$1]} log=$WORK/${CASE_NAMES[$1]}.log
	local verdict code reasons=()
	if [[ -z ${BIN[$arch]:-} ]]; then
		result_skip "$name" "no --bin-$arch given"
		return 0
	fi
	if [[ -n ${BIN_PROBLEM[$arch]:-} ]]; then
		result_fail "$name" "${BIN_PROBLEM[$arch]}"
		return 0
	fi
	if [[ -z ${SLOT_VMLINUZ[$slot]:-} ]]; then
		result_skip "$name" "kernel $slot unavailable: ${SLOT_SKIP[$slot]:-not fetched}"
		return 0
	fi
	if [[ -z ${BIN[$HOST_ARCH]:-} || -n ${BIN_PROBLEM[$HOST_ARCH]:-} ]]; then
		result_fail "$name" "no usable --bin-$HOST_ARCH: it writes the initramfs on this $HOST_ARCH machine"
		return 0
	fi
	if [[ ${CASE_KIND[$i]} == point ]]; then
		run_point_case "$i"
		return 0
	fi
	if [[ ${CASE_KIND[$i]} == bisect ]]; then
		run_bisect_case "$i"
		return 0
	fi
	# One archive per arch and baked options (the cases without any share theirs).
	local baked=${CASE_BAKED[$i]} key initrd
	key=$arch${baked:+-$name}
	if [[ -z ${INITRD[$key]:-} ]]; then
		initrd=$WORK/initramfs-$key.cpio
		# shellcheck disable=SC2086 # the baked options are words
		if ! "${BIN[$HOST_ARCH]}" initramfs -o "$initrd" --init "${BIN[$arch]}" $baked 2>"$WORK/$name.mk"; then
			result_fail "$name" "initramfs failed: $(head -c 300 "$WORK/$name.mk")"
			return 0
		fi
		INITRD[$key]=$initrd
	fi
	note "booting $name: ${CASE_PRE[$i]:+${CASE_PRE[$i]} }${CASE_ARGS[$i]:+-- ${CASE_ARGS[$i]}}${baked:+ (baked: $baked)}"
	boot "$name" "$arch" "${SLOT_VMLINUZ[$slot]}" "${INITRD[$key]}" "${CASE_PRE[$i]}" "${CASE_ARGS[$i]}"

	# The binary prints this line as PID 1 right before powering off; the last one counts.
	verdict=$(sed -nE 's/^uring-repro: exit ([0-9]+)$/\1/p' "$log" | tail -n1)
	case $BOOT_RC in
	0) ;;
	124 | 137) reasons+=("timeout fired after ${TIMEOUT}s (QEMU did not power off)") ;;
	*) reasons+=("QEMU exited with status $BOOT_RC") ;;
	esac
	grep -q 'Kernel panic' "$log" && reasons+=("console has 'Kernel panic'")
	# "Attempted to kill init! exitcode=0x00000400": a wait status, so PID 1 exited with 4.
	code=$(sed -nE 's/.*Attempted to kill init! exitcode=(0x[0-9a-fA-F]+).*/\1/p' "$log" | head -n1)
	if [[ -n $code ]]; then
		reasons+=("PID 1 exited (status $(((code >> 8) & 255)), signal $((code & 127))) instead of powering off: 'Attempted to kill init'")
	elif grep -q 'Attempted to kill init' "$log"; then
		reasons+=("console has 'Attempted to kill init' (PID 1 exited)")
	fi
	if [[ -z $verdict ]]; then
		reasons+=("no 'uring-repro: exit N' line on the console")
	elif [[ $verdict != "$want" ]]; then
		reasons+=("exit $verdict, expected $want")
	fi
	local pat
	while IFS= read -r pat; do
		if [[ -n $pat ]] && ! grep -qE -- "$pat" "$log"; then
			reasons+=("no console line matches /$pat/")
		fi
	done <<<"$line"
	note "$name: ${BOOT_SECS}s, qemu status $BOOT_RC, verdict ${verdict:-none}"
	judge "$name" "$log" "${reasons[@]}"
}

# ---------------------------------------------------------------------------------------
main() {
	local only=() keep="" list=0 i n sel slot
	CACHE=$DEFAULT_CACHE TIMEOUT=$DEFAULT_TIMEOUT REFRESH=0
	while (($#)); do
		case $1 in
		-h | --help)
			usage
			exit 0
			;;
		--refresh)
			REFRESH=1
			shift
			continue
			;;
		--list)
			list=1
			shift
			continue
			;;
		# A binary for another arch is its cases' failures (check_binary).
		--bin-x86_64) opt_value 'BIN[x86_64]' file "$@" ;;
		--bin-aarch64) opt_value 'BIN[aarch64]' file "$@" ;;
		--bin-riscv64) opt_value 'BIN[riscv64]' file "$@" ;;
		--only)
			opt_value n text "$@"
			only+=("$n")
			;;
		--keep) opt_value keep new_dir "$@" ;;
		--cache) opt_value CACHE new_dir "$@" ;;
		--timeout) opt_value TIMEOUT positive "$@" ;;
		*) usage_error "unknown argument '$1'" ;;
		esac
		shift 2
	done
	if ((list)); then
		printf '%s\n' "${CASE_NAMES[@]}"
		exit 0
	fi
	opt_value CACHE new_dir --cache "$CACHE"

	# Selected case indices; every --only must name a case, so a typo is not a green run.
	sel=()
	for n in "${only[@]}"; do
		for i in "${!CASE_NAMES[@]}"; do [[ ${CASE_NAMES[i]} == "$n" ]] && break; done
		[[ ${CASE_NAMES[i]} == "$n" ]] || usage_error "--only: no case '$n' (see --list)"
	done
	for i in "${!CASE_NAMES[@]}"; do
		if ((${#only[@]} == 0)) || printf '%s\n' "${only[@]}" | grep -qxF -- "${CASE_NAMES[i]}"; then
			sel+=("$i")
		fi
	done
	# x86_64 is the primary target and this machine's binary writes every initramfs:
	# running cases without it is a usage error.
	for i in "${sel[@]}"; do
		[[ ${CASE_ARCH[i]} == x86_64 && -z ${BIN[x86_64]:-} ]] &&
			usage_error "--bin-x86_64 is required for case ${CASE_NAMES[i]}"
	done
	if ((${#sel[@]} > 0)) && [[ -z ${BIN[$HOST_ARCH]:-} ]]; then
		usage_error "--bin-$HOST_ARCH is required: it writes the initramfs of every case"
	fi
	for n in "${!BIN[@]}"; do check_binary "$n" "${BIN[$n]}"; done

	work_dir "$keep" boot

	ensure_tools
	mkdir -p "$CACHE"
	# One fetcher at a time per cache (apt locks its private lists; two downloads of the same
	# kernel would race on the rename).
	exec {lockfd}>"$CACHE/.lock"
	flock "$lockfd"
	# Fetch only the kernels the selected, runnable cases need.
	local -A want_slot=()
	for i in "${sel[@]}"; do
		[[ -n ${BIN[${CASE_ARCH[i]}]:-} ]] && want_slot[${CASE_KERNEL[i]}]=1
	done
	local -a slots=()
	mapfile -t slots < <(printf '%s\n' "${!want_slot[@]}" | sort)
	for slot in "${slots[@]}"; do [[ -n $slot ]] && fetch_kernel "$slot"; done
	flock -u "$lockfd"

	for i in "${sel[@]}"; do run_case "$i"; done
	[[ -n $keep ]] && note "logs kept in $WORK"
	summary
}

main "$@"
