# What the test scripts share (tests/boot/run.sh, tests/kernel/run.sh and lost-wakeup.sh,
# tests/cost/run.sh), sourced by each (bash): stderr notes and errors, option checks,
# TAP-like results in which a skip fails when CI is set (so CI never passes with a case
# untested), judging a case by its reasons, the summary, the work directory, and
# installing missing Debian packages.
# Results go to stdout; progress and diagnostics go to stderr as "# ..." lines so a TAP
# reader ignores them. Sourced first (after set -Eeuo pipefail), it also sets the ERR trap
# and HERE (the sourcing script's directory) and REPO (the checkout).

# A bug in a script must not look like a quiet exit 1: name the line that failed.
trap 'printf "%s: internal error: status %s at line %s\n" "${0##*/}" "$?" "$LINENO" >&2' ERR
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[1]}")" && pwd)
readonly HERE
REPO=$(cd -- "$HERE/../.." && pwd)
readonly REPO


note() { printf '# %s\n' "$*" >&2; }
warn() { printf '# WARNING: %s\n' "$*" >&2; }
die() {
	printf '%s: %s\n' "${0##*/}" "$*" >&2
	exit 1
}
usage_error() {
	printf '%s: %s (try --help)\n' "${0##*/}" "$*" >&2
	exit 2
}
# need_bin: the --bin a script was given (in BIN) exists and runs; made absolute.
need_bin() {
	[[ -n $BIN ]] || usage_error "--bin PATH is required"
	[[ -x $BIN ]] || usage_error "--bin: not an executable: $BIN"
	BIN=$(realpath "$BIN")
}
# positive OPTION VALUE: a usage error unless VALUE is a positive whole number.
positive() { [[ $2 =~ ^[1-9][0-9]*$ ]] || usage_error "$1: a positive number, not '$2'"; }

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
# summary: the last stdout line, and the exit status: 0 iff nothing failed. (exit, not a
# false test: a failing last command would trip the callers' ERR trap.)
summary() {
	printf '%d passed, %d failed, %d skipped\n' "$PASSED" "$FAILED" "$SKIPPED"
	if ((FAILED > 0)); then exit 1; fi
	exit 0
}

# work_dir KEEP NAME: WORK, the run's directory: KEEP (made, kept) when given, else a new
# temporary one removed at exit.
work_dir() {
	if [[ -n $1 ]]; then
		mkdir -p "$1"
		WORK=$(cd "$1" && pwd)
	else
		WORK=$(mktemp -d "${TMPDIR:-/tmp}/uring-repro-$2.XXXXXX")
		trap 'rm -rf "$WORK"' EXIT
	fi
}

# apt_install LOG PKG...: install PKGs (root only) after an update, apt's chatter to LOG and
# its tail shown on failure; status 1 when it could not. The lock timeout waits out another
# apt run instead of failing at once.
apt_install() {
	local log=$1
	shift
	[[ $(id -u) == 0 ]] || {
		warn "$* missing and not root to install them"
		return 1
	}
	note "installing $* (log: $log)"
	if ! { apt-get -q update && DEBIAN_FRONTEND=noninteractive apt-get -q install -y \
		--no-install-recommends -o DPkg::Lock::Timeout=300 "$@"; } >"$log" 2>&1; then
		tail -n 20 "$log" >&2
		return 1
	fi
}
