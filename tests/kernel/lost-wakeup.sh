#!/usr/bin/env bash
# The poll change's lost wake-up, hunted on two vCPUs in parallel (docs/reproduction.md,
# "Can the poll change lose a wake-up?").
#
# Why: kernel/poll-skip-redundant-wakeups.patch was never merged; a lost wake-up was
# suspected. Its flag is stored by the poller before it loads the CQ tail, and exchanged by
# the completer after it stores the tail, with only smp_rmb() on the poller's side: the two
# can miss each other only when they run at the same time, on two CPUs, never on QEMU's
# instruction clock (one vCPU at a time). This boots the poll kernel again and again under
# multi-threaded TCG (`boot-point.sh --accel tcg --cpus 2`: one host thread per vCPU, whose
# plain stores and loads are the host's own, store buffer included) into pollwake with the
# waiter on the other vCPU, until the waiter's watchdog has caught --catches lost wake-ups
# (a run ends at its first) or the time runs out. Then the controls, each for at least as
# many bursts: the parent kernel, and (--barrier) the poll kernel with
# kernel/poll-barrier.patch on top. Every boot's point is kept in the work directory.
#
# It needs the poll and parent kernels tests/kernel/run.sh built (its cache), or --poll and
# --parent. Not part of CI: the race is rare (docs/reproduction.md gives the runs: about one
# in 107,000 bursts here), so whether it is caught within a bound is chance, and CI
# must not pass or fail by chance.
#
# Options: --help. Output: one TAP-like line per kernel, then "N passed, N failed, N
# skipped". Exit status: 0 iff the poll kernel lost --catches wake-ups and no control lost
# one in as many bursts; 1 otherwise (too few caught within the bound, or one on a control);
# 2 usage (a kernel that is not there included); 4 nothing ran (no QEMU); 130 interrupted.
set -Eeuo pipefail
# Output helpers, results (a skip fails under CI), apt, the ERR trap, HERE and REPO.
# shellcheck source=../lib/harness.sh
. "$(dirname -- "${BASH_SOURCE[0]}")/../lib/harness.sh"

# Defaults, named so --help and the code agree.
# Where tests/kernel/run.sh keeps its kernels: DEFAULT_CACHE, DEFAULT_SOURCE_VERSION, OBJ,
# IMAGE.
# shellcheck source=layout.sh
. "$HERE/layout.sh"
readonly DEFAULT_MINUTES=30 # for each kernel
# Rounds a boot: 51,200 bursts, under a minute of the poll kernel here, so the time bound
# is overrun by at most one boot.
readonly DEFAULT_ROUNDS=200
# pollwake as the hunt runs it: the producer on vCPU 0, the waiter on vCPU 1; bursts of 64
# (the most), so more of a burst's completions land while the waiter is awake and re-polls.
readonly -a RUN=(--profile pollwake --cpu 0 --waiter-cpu 1 --burst 64 --cycles 256 --warmups 0)

usage() {
	cat <<EOF
usage: $0 --bin PATH [options]

Hunts the poll change's lost wake-up on two vCPUs, then runs the controls.

  --bin PATH       the x86_64 uring-repro to boot (a release build)
  --poll IMAGE     the poll kernel (default: tests/kernel/run.sh's, in
                   $DEFAULT_CACHE/$DEFAULT_SOURCE_VERSION/poll)
  --parent IMAGE   the parent kernel, the control (default: beside the poll kernel's)
  --barrier IMAGE  the poll kernel with kernel/poll-barrier.patch, a second control
                   (default: none)
  --catches N      lost wake-ups to catch on the poll kernel (default: 1)
  --minutes N      how long each kernel may run (default: $DEFAULT_MINUTES); a control
                   stops earlier once it has run as many bursts as the poll kernel took
  --rounds N       pollwake rounds a boot (default: $DEFAULT_ROUNDS, 256 bursts of 64 each)
  --keep DIR       keep every boot's point in DIR (default: a temporary directory)
  -h, --help       this text

exit: 0 the poll kernel lost --catches wake-ups and no control lost one in as many
      bursts; 1 otherwise; 2 usage (a kernel that is not there too); 4 nothing ran (no
      QEMU); 130 interrupted (SIGINT, SIGTERM, SIGHUP: the boot stopped).
EOF
}

# field POINT KEY: KEY's value on the point's `# waiter:` line.
field() { sed -n "s/^# waiter: .* $2=\\([0-9]*\\).*/\\1/p" "$1"; }

# A boot that gives no point (two vCPUs' console lines can garble the report) is noted and
# skipped; this many in a row end the hunt.
readonly MAX_NO_POINT=3

# hunt NAME IMAGE SECONDS CATCHES [BURSTS]: boots until CATCHES boots have each caught a
# lost wake-up (a run ends at its first), SECONDS pass, or (given) BURSTS waiter bursts ran;
# sets BURSTS_RUN, LOST (boots that caught one), CAUGHT (their points) and BOOTS_RUN.
hunt() {
	local name=$1 image=$2 seconds=$3 catches=$4 enough=${5:-} start k=0 point b l rc missed=0
	start=$(date +%s) BURSTS_RUN=0 LOST=0 CAUGHT=() BOOTS_RUN=0
	while (($(date +%s) - start < seconds && LOST < catches)); do
		[[ -z $enough ]] || ((BURSTS_RUN < enough)) || break
		k=$((k + 1))
		point=$WORK/$name-$k.txt
		rc=0
		run_child "$REPO/scripts/boot-point.sh" --kernel "$image" -o "$point" --accel tcg \
			--cpus 2 --bin "$BIN" --timeout $((seconds + 600)) -- "${RUN[@]}" --rounds "$ROUNDS" \
			>"$WORK/$name-$k.log" 2>&1 || rc=$?
		if [[ ! -s $point ]] || ! b=$(field "$point" bursts) || [[ -z $b ]]; then
			note "$name boot $k: no point (boot-point.sh exit $rc): $(tail -n 1 "$WORK/$name-$k.log")"
			missed=$((missed + 1))
			((missed < MAX_NO_POINT)) || return 1
			continue
		fi
		missed=0
		l=$(field "$point" lost_wakeups)
		BURSTS_RUN=$((BURSTS_RUN + b)) BOOTS_RUN=$k
		note "$name boot $k: $b bursts, lost_wakeups=$l (all: $BURSTS_RUN bursts, $(($(date +%s) - start)) s)"
		if ((l > 0)); then
			LOST=$((LOST + 1)) CAUGHT+=("$point")
			grep -hE '^uring-repro: FAIL|^# waiter:' "$WORK/$name-$k.log" "$point" >&2 || true
		fi
	done
}

# control NAME IMAGE SECONDS BURSTS: a kernel that must lose none in as many bursts.
control() {
	local name=$1 image=$2 seconds=$3 want=$4
	if ((want == 0)); then
		result_skip "$name-loses-none" "not run: the poll kernel ran no bursts to match"
	elif ! hunt "$name" "$image" "$seconds" 1 "$want"; then
		result_not_ok "$name-loses-none" "$MAX_NO_POINT boots in a row gave no point"
	elif ((LOST > 0)); then
		result_not_ok "$name-loses-none" "a lost wake-up after $BURSTS_RUN bursts (${CAUGHT[0]})"
	elif ((BURSTS_RUN < want)); then
		result_not_ok "$name-loses-none" "only $BURSTS_RUN of $want bursts in $((seconds / 60)) minutes"
	else
		result_ok "$name-loses-none"
		note "$name: no lost wake-up in $BURSTS_RUN bursts ($BOOTS_RUN boots)"
	fi
}

main() {
	local poll="" parent="" barrier="" minutes=$DEFAULT_MINUTES catches=1 keep=""
	BIN="" ROUNDS=$DEFAULT_ROUNDS
	option() { usage_error "unknown argument '$1'"; }
	read_options '
	--bin      BIN       exe
	--poll     poll      file
	--parent   parent    file
	--barrier  barrier   file
	--catches  catches   positive
	--minutes  minutes   positive
	--rounds   ROUNDS    positive
	--keep     keep      new_dir
	' "$@"
	shift "$OPTIONS_READ"
	(($# == 0)) || usage_error "unknown argument '$1'"
	[[ -n $BIN ]] || usage_error "--bin PATH is required"
	# The kernels tests/kernel/run.sh built, unless named: a hunt without one is no hunt.
	local k
	poll=${poll:-$DEFAULT_CACHE/$DEFAULT_SOURCE_VERSION/poll/$OBJ/$IMAGE}
	parent=${parent:-${poll%/poll/*}/parent/${poll#*/poll/}}
	for k in poll parent; do
		[[ -f ${!k} ]] || usage_error "--$k: no kernel at ${!k} (run tests/kernel/run.sh first, or name it)"
	done
	work_dir "$keep" lost-wakeup

	if ! command -v qemu-system-x86_64 >/dev/null; then
		result_skip hunt "qemu-system-x86_64 is missing (Debian: qemu-system-x86)"
		summary
	fi

	if ! hunt poll "$poll" $((minutes * 60)) "$catches"; then
		result_not_ok poll-loses-a-wakeup "$MAX_NO_POINT boots in a row gave no point"
	elif ((LOST >= catches)); then
		result_ok poll-loses-a-wakeup
		note "poll: $LOST lost wake-ups in $BURSTS_RUN bursts ($BOOTS_RUN boots): ${CAUGHT[*]}"
	else
		result_not_ok poll-loses-a-wakeup "$LOST of $catches caught in $BURSTS_RUN bursts ($minutes minutes): the race is rare, run longer"
	fi
	local want=$BURSTS_RUN
	control parent "$parent" $((minutes * 60)) "$want"
	[[ -z $barrier ]] || control barrier "$barrier" $((minutes * 60)) "$want"
	[[ -z $keep ]] || note "points and logs kept in $WORK"
	summary
}

main "$@"
