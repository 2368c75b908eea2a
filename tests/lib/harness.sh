# shellcheck shell=bash
# What the test scripts share (tests/boot/run.sh, tests/kernel/run.sh and lost-wakeup.sh,
# tests/cost/run.sh), sourced by each (bash): stderr notes and errors, TAP-like results in
# which a skip fails when CI is set (so CI never passes with a case untested), judging a
# case by its reasons, the summary, the work directory, and installing missing Debian
# packages; and, from scripts/common.sh, what the scripts share: say, usage_error,
# opt_value (an option's value, checked), make_dir, the lifetime (run_child; the work
# directory removed and the children stopped however the script ends), host_arch.
# Results go to stdout; progress and diagnostics go to stderr as "# ..." lines so a TAP
# reader ignores them. Sourced first (after set -Eeuo pipefail), it also sets the ERR trap
# and HERE (the sourcing script's directory) and REPO (the checkout).

# A bug in a script must not look like a quiet exit 1: name the line that failed.
trap 'printf "%s: internal error: status %s at line %s\n" "${0##*/}" "$?" "$LINENO" >&2' ERR
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[1]}")" && pwd)
readonly HERE
REPO=$(cd -- "$HERE/../.." && pwd)
readonly REPO
PROG=${0##*/}
# shellcheck source=../../scripts/common.sh
. "$REPO/scripts/common.sh"

note() { printf '# %s\n' "$*" >&2; }
warn() { printf '# WARNING: %s\n' "$*" >&2; }
die() {
	say "$*"
	exit 1
}

PASSED=0 FAILED=0 SKIPPED=0 N=0
result_ok() {
	N=$((N + 1)) PASSED=$((PASSED + 1))
	printf 'ok %d - %s\n' "$N" "$1"
}
result_skip() {
	N=$((N + 1))
	if [[ -n ${CI:-} ]]; then
		FAILED=$((FAILED + 1))
		printf 'not ok %d - %s: SKIP: %s (a skip fails when CI is set)\n' "$N" "$1" "$2"
		return 0
	fi
	SKIPPED=$((SKIPPED + 1))
	printf 'ok %d - %s # SKIP %s\n' "$N" "$1" "$2"
	warn "SKIPPED $1: $2"
}
# result_not_ok NAME REASON: the failure line; the caller shows what explains it.
result_not_ok() {
	N=$((N + 1)) FAILED=$((FAILED + 1))
	printf 'not ok %d - %s: %s\n' "$N" "$1" "$2"
}
# judge NAME LOG [REASON...]: ok with no reason, else not ok naming every reason; the
# caller's result_fail NAME WHY LOG shows from LOG what explains them.
judge() {
	local name=$1 log=$2
	shift 2
	if (($# == 0)); then
		result_ok "$name"
	else
		result_fail "$name" "$(printf '%s; ' "$@" | sed 's/; $//')" "$log"
	fi
}
# summary: the last stdout line, and the exit status: 0 iff nothing failed and something
# passed; 4 when every case was skipped (nothing was tested: not a pass, even outside CI).
# (exit, not a false test: a failing last command would trip the callers' ERR trap.)
summary() {
	printf '%d passed, %d failed, %d skipped\n' "$PASSED" "$FAILED" "$SKIPPED"
	if ((FAILED > 0)); then exit 1; fi
	if ((PASSED == 0 && SKIPPED > 0)); then
		warn "nothing was tested: every case was skipped"
		exit 4
	fi
	exit 0
}

# work_dir KEEP NAME: WORK, the run's directory: KEEP (a new_dir option's value: made, kept)
# when given, else SCRATCH; and the lifetime begun (common.sh): SCRATCH goes and the
# children stop however the script ends, and Ctrl-C, SIGTERM or SIGHUP end it with 130
# (not Ctrl-C when it started with SIGINT ignored: common.sh, "Lifetime").
# shellcheck disable=SC2034 # WORK: for the sourcing script
work_dir() {
	lifetime_begin "$2" || exit 1
	if [[ -n $1 ]]; then
		WORK=$(abs_path "$1")
		make_dir --keep "$WORK"
	else
		WORK=$SCRATCH
	fi
}

# apt_install LOG PKG...: install PKGs (root only) after an update, apt's chatter to LOG and
# its tail shown on failure; status 1 when it could not. The lock timeout waits out another
# apt run instead of failing at once, and the test scripts' own installs (.ci/run starts the
# boot and the kernel tests at once) take turns on one lock file: apt-get update waits for
# nobody.
apt_install() {
	local log=$1
	shift
	[[ $(id -u) == 0 ]] || {
		warn "$* missing and not root to install them"
		return 1
	}
	note "installing $* (log: $log)"
	if ! { flock -w 900 9 && apt-get -q update && DEBIAN_FRONTEND=noninteractive apt-get -q install -y \
		--no-install-recommends -o DPkg::Lock::Timeout=300 "$@"; } 9>>/var/tmp/uring-repro-apt.lock >"$log" 2>&1; then
		tail -n 20 "$log" >&2
		return 1
	fi
}
