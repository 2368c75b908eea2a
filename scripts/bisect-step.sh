#!/bin/sh
# bisect-step.sh: one step of `git bisect run`, run from a kernel tree: build the commit
# checked out, boot it into a point with boot-point.sh, and judge the point. Exit codes are
# git bisect's: 0 good, 1 bad, 125 cannot test this commit (a build that fails, a boot that
# hangs or prints no report, a point that cannot be judged), 128 and up: stop the bisect
# (the step itself cannot work: bad arguments, references that cannot decide anything).
# What would fail every step the same way (a reference file missing, a bad --gate, --points
# not writable, QEMU or its accelerator missing, bad run options) is checked before the
# build, so a bisect stops at once instead of building and skipping every commit. Nothing
# in --points is ever overwritten: a commit tested again gets COMMIT.2.txt and its own log.
#
# POSIX sh (checked with dash). Needs git, qemu-system-ARCH, and what boot-point.sh needs.
set -eu

PROG=bisect-step.sh
# Exit codes, named after what git bisect run does with them.
GOOD=0 BAD=1 SKIP=125 STOP=128

usage() {
	cat <<EOF
usage: $PROG (--good FILE... --bad FILE... | --functional) [--build CMD] [--image PATH]
                     [--arch A] [--accel kvm|tcg|icount] [--points DIR] [--gate PCT]
                     [--append ARGS] [--timeout S] [--bin PATH] [--options-from FILE]
                     [--append-from FILE] [-- RUN-OPTIONS]

Run from the kernel tree being bisected, as \`git bisect run $0 ...\`. Builds the commit
checked out, boots it (scripts/boot-point.sh, a fresh boot), and says good or bad:

  --good FILE      a point of the known-good kernel (repeat it: one per boot)
  --bad FILE       a point of the known-bad kernel (repeat it)
                   performance: the new point against them, \`uring-repro compare
                   --bisect\` (docs/compare.md): 0 good, 1 bad, 125 cannot tell
  --functional     no references: the run's own exit code decides: 0 good, 1 bad (a check
                   failed), 4 (the kernel cannot run it) or no report: 125
  --build CMD      how to build (sh -c, in the tree; default: $DEFAULT_BUILD);
                   a failing build is 125
  --image PATH     the kernel it builds (default per arch: arch/x86/boot/bzImage,
                   arch/arm64/boot/Image, arch/riscv/boot/Image)
  --arch A         x86_64, aarch64 or riscv64 (default: this machine's)
  --accel A        passed to boot-point.sh: kvm, tcg or icount (default tcg, whose
                   timings are not evidence; icount counts instructions)
  --points DIR     where every point is kept, named by commit (default: bisect-points in
                   the tree's parent directory); the build log sits beside it; neither is
                   ever overwritten (a commit tested again gets COMMIT.2.txt)
  --gate PCT       passed to compare --bisect (default 5)
  --append ARGS    more kernel parameters for every boot
  --timeout S      per boot (boot-point.sh's default otherwise)
  --bin PATH       the uring-repro to boot (boot-point.sh's default otherwise)
  --options-from FILE
                   run options read from FILE in the tree (one per line) at every step,
                   after RUN-OPTIONS: for trees that carry their own workload settings
  --append-from FILE
                   kernel parameters read from FILE in the tree (one per line) at every
                   step, after --append: for trees that carry their own boot settings
  -h, --help       this text

exit: 0 good, 1 bad, 125 skip, 128 stop (a usage error, unusable references, or anything
      else that keeps this step from working: checked before the build where it can be).
EOF
}

# shellcheck disable=SC2016 # expanded by sh -c, at build time
DEFAULT_BUILD='make olddefconfig && make -j$(nproc)'

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(dirname "$HERE")
# say, host_arch, arch_set: what the scripts share.
. "$HERE/common.sh"
stop() {
	say "$*"
	exit $STOP
}

goods="" bads="" functional=0 build=$DEFAULT_BUILD image="" arch=$(host_arch) accel="" points=""
gate="" append="" timeout_s="" bin="" options_from="" append_from=""
# Points are file names: kept newline-separated (a name with a newline is refused).
# At least this much must be writable in --points before a build (a build log and a point).
PROBE_KB=64
nl='
'
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
	--functional)
		functional=1
		shift
		;;
	--good | --bad | --build | --image | --arch | --accel | --points | --gate | --append | --timeout | --bin | --options-from | --append-from)
		[ $# -ge 2 ] || stop "$1 needs a value (try --help)"
		case $2 in *"$nl"*) stop "$1: a newline in a value" ;; esac
		case $1 in
		--good) goods="$goods$2$nl" ;;
		--bad) bads="$bads$2$nl" ;;
		--build) build=$2 ;;
		--image) image=$2 ;;
		--arch) arch=$2 ;;
		--accel) accel=$2 ;;
		--points) points=$2 ;;
		--gate) gate=$2 ;;
		--append) append=$2 ;;
		--timeout) timeout_s=$2 ;;
		--bin) bin=$2 ;;
		--options-from) options_from=$2 ;;
		--append-from) append_from=$2 ;;
		esac
		shift 2
		;;
	*) stop "unknown argument '$1' (try --help)" ;;
	esac
done

if [ "$functional" = 1 ]; then
	[ -z "$goods$bads" ] || stop "--functional takes no --good or --bad"
else
	{ [ -n "$goods" ] && [ -n "$bads" ]; } || stop "needs --good FILE and --bad FILE, or --functional (try --help)"
fi
if [ -n "$gate" ]; then
	# compare's own rule (a percentage in (0, 100]), here so a typo stops before the build.
	case $gate in
	'' | *[!0-9.]* | *.*.* | .) stop "--gate: a percentage in (0, 100], not '$gate'" ;;
	esac
	awk -v g="$gate" 'BEGIN { exit !(g + 0 > 0 && g + 0 <= 100) }' ||
		stop "--gate: a percentage in (0, 100], not '$gate'"
fi
arch_set "$arch" || stop "--arch: $ARCHES, not '$arch'"
image=${image:-$kimage}
# Paths given here are taken from here, before the step moves into the tree.
abs() { (cd "$(dirname "$1")" 2>/dev/null && printf '%s/%s\n' "$(pwd)" "$(basename "$1")") || printf '%s\n' "$1"; }
old_ifs=$IFS
IFS=$nl
refs=""
for f in $goods $bads; do
	{ [ -f "$f" ] && [ -r "$f" ]; } || stop "not a readable file: $f (a --good or --bad reference)"
done
for f in $goods; do refs="${refs}good=$(abs "$f")$nl"; done
for f in $bads; do refs="${refs}bad=$(abs "$f")$nl"; done
IFS=$old_ifs
[ -z "$bin" ] || bin=$(abs "$bin")
tree=$(git rev-parse --show-toplevel 2>/dev/null) || stop "not inside a git tree (run it from the tree being bisected)"
commit=$(git rev-parse --short=12 HEAD) || stop "git rev-parse HEAD failed"
points=${points:-$(dirname "$tree")/bisect-points}
mkdir -p "$points" 2>/dev/null || stop "--points: cannot create $points"
points=$(cd "$points" && pwd)
# Writable, with room for a log and a point: a probe of PROBE_KB written and removed.
probe=$(mktemp "$points/.probe.XXXXXX" 2>/dev/null) || stop "--points: cannot create a file in $points"
if ! err=$(dd if=/dev/zero of="$probe" bs=1024 count=$PROBE_KB 2>&1); then
	rm -f "$probe"
	stop "--points: cannot write ${PROBE_KB} KiB in $points ($(printf '%s\n' "$err" | sed -n '1s/.*: //p'))"
fi
rm -f "$probe"
host_bin=$REPO/target/release/uring-repro
[ "$functional" = 1 ] || [ -x "$host_bin" ] || stop "$host_bin is not built (cargo build --release): it judges the points"

# A point's name: the commit, and a count when this commit was tested before (by its point
# or by its build log alone: an earlier build that failed left only the log).
point=$points/$commit.txt
n=1
while [ -e "$point" ] || [ -e "${point%.txt}.build.log" ]; do
	n=$((n + 1))
	point=$points/$commit.$n.txt
done
log=${point%.txt}.build.log

cd "$tree"
# The run options: RUN-OPTIONS, then the tree's own (one per line) if asked for.
if [ -n "$options_from" ]; then
	[ -f "$options_from" ] || stop "--options-from: $options_from is not in the tree at $commit"
	while IFS= read -r word || [ -n "$word" ]; do
		[ -n "$word" ] && set -- "$@" "$word"
	done <"$options_from"
fi
# The kernel parameters: --append, then the tree's own (one per line) if asked for.
if [ -n "$append_from" ]; then
	[ -f "$append_from" ] || stop "--append-from: $append_from is not in the tree at $commit"
	while IFS= read -r word || [ -n "$word" ]; do
		[ -n "$word" ] && append="${append:+$append }$word"
	done <"$append_from"
fi

# boot-point.sh as this step calls it, with its options (ARGS: --check, and -- and the run
# options); one list, so the check before the build is of the very boot after it.
boot_point() {
	"$HERE/boot-point.sh" --kernel "$image" -o "$point" --arch "$arch" ${accel:+--accel "$accel"} \
		${append:+--append "$append"} ${timeout_s:+--timeout "$timeout_s"} ${bin:+--bin "$bin"} "$@"
}

# What boot-point.sh needs beyond the image (QEMU, the accelerator, the run options, its
# timeout, the point's directory), checked before the build: a missing one would fail every
# commit.
rc=0
out=$(boot_point --check -- "$@" 2>&1) || rc=$?
if [ "$rc" -ne 0 ]; then
	printf '%s\n' "$out" | sed 's/^/  | /' >&2
	stop "$commit: boot-point.sh --check exit $rc: no commit can be booted so (fix it and restart)"
fi

say "$commit: building ($build), log in $log"
# noclobber: the log is evidence, never overwritten (one that appeared meanwhile stops it).
if ! (set -C && : >"$log") 2>/dev/null; then
	stop "$log: exists or cannot be created (never overwritten)"
fi
t_build=$(date +%s)
if ! sh -c "$build" >>"$log" 2>&1; then
	say "$commit: the build failed after $(($(date +%s) - t_build)) s (last lines of $log):"
	tail -n 5 "$log" | sed 's/^/  | /' >&2
	exit $SKIP
fi
[ -f "$image" ] || {
	say "$commit: the build left no kernel image at $image"
	exit $SKIP
}

t_boot=$(date +%s)
t_build=$((t_boot - t_build))
rc=0
boot_point -- "$@" || rc=$?
t_boot=$(($(date +%s) - t_boot))

# The verdict line: what git bisect is told, the step's times, and its evidence.
verdict() {
	say "$commit: $1 (exit $2) after $((t_build + t_boot)) s (build $t_build s, boot $t_boot s); point: $point"
	exit "$2"
}
case $rc in
0) ;;
1) [ "$functional" = 1 ] && verdict "bad: a check failed" $BAD ;;
2) stop "$commit: boot-point.sh refused its arguments (exit 2): this step cannot work" ;;
130) stop "$commit: interrupted" ;;
esac
if [ "$rc" -ne 0 ]; then
	# A run that could not run here (4), failed its checks in a performance bisect (1), a
	# boot that hung (124) or printed no report (125): this commit cannot be judged.
	verdict "cannot be judged: boot-point.sh exit $rc" $SKIP
fi
[ "$functional" = 1 ] && verdict "good: the run passed" $GOOD

# Performance: the new point against the references.
set --
IFS=$nl
for r in $refs; do set -- "$@" "$r"; done
IFS=$old_ifs
rc=0
"$host_bin" compare --bisect ${gate:+--gate "$gate"} "$@" "new=$point" >&2 || rc=$?
case $rc in
0) verdict good $GOOD ;;
1) verdict bad $BAD ;;
125) verdict "cannot be judged" $SKIP ;;
*) stop "$commit: compare --bisect exit $rc: the references cannot decide (fix them and restart)" ;;
esac
