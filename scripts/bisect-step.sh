#!/bin/sh
# bisect-step.sh: one step of `git bisect run`, run from a kernel tree: build the commit
# checked out, boot it into a point with boot-point.sh, and judge the point. Exit codes are
# git bisect's: 0 good, 1 bad, 125 cannot test this commit (a build that fails, a boot that
# hangs or prints no report, a point that cannot be judged), 128 and up: stop the bisect
# (the step itself cannot work: bad arguments, references that cannot decide anything).
# What would fail every step the same way (a reference file missing, a bad --gate,
# references compare --bisect cannot use, --points not writable, QEMU or its accelerator
# missing, bad run options) is checked before the build, so a bisect stops at once instead
# of building and skipping every commit. Nothing in --points is ever overwritten: a commit
# tested again gets COMMIT.2.txt and its own log. Ctrl-C, SIGTERM or SIGHUP stop the build
# or the boot at once (130, which stops the bisect); whatever ends the step, even SIGKILL,
# neither outlives it (scripts/common.sh, "Lifetime").
# Ctrl-C does not reach one started with SIGINT ignored (a script's background job): it
# says so on a terminal; SIGTERM or SIGHUP then.
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
  --image PATH     the kernel it builds, in the tree (from its top) unless absolute
                   (default per arch: arch/x86/boot/bzImage, arch/arm64/boot/Image,
                   arch/riscv/boot/Image)
  --arch A         x86_64, aarch64 or riscv64 (default: this machine's)
  --accel A        passed to boot-point.sh: kvm, tcg or icount (default tcg, whose
                   timings are not evidence; icount counts instructions)
  --points DIR     where every point is kept, named by commit (default: bisect-points in
                   the tree's parent directory); the build log sits beside it; neither is
                   ever overwritten (a commit tested again gets COMMIT.2.txt)
  --gate PCT       passed to compare --bisect (default 5); compare judges it and the
                   references once before the first build: a good reference must come out
                   good
  --append ARGS    more kernel parameters for every boot
  --timeout S      per boot (boot-point.sh's default otherwise)
  --bin PATH       the uring-repro to boot (boot-point.sh's default otherwise)
  --options-from FILE
                   run options read from FILE in the tree (from its top; one per line) at
                   every step, after RUN-OPTIONS: for trees that carry their own workload
                   settings
  --append-from FILE
                   kernel parameters read from FILE in the tree (from its top; one per
                   line) at every step, after --append: for trees that carry their own boot
                   settings
  -h, --help       this text

Other paths are taken from the directory it is started in.

exit: 0 good, 1 bad, 125 skip, 128 stop (a usage error, unusable references, or anything
      else that keeps this step from working: checked before the build where it can be),
      130 interrupted (SIGINT, SIGTERM, SIGHUP: the build or boot stopped; it stops the
      bisect too).
EOF
}

# shellcheck disable=SC2016 # expanded by sh -c, at build time
DEFAULT_BUILD='make olddefconfig && make -j$(nproc)'

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(dirname "$HERE")
# say, usage_error, opt_value, read_options, the lifetime, host_arch, arch_set: what the
# scripts share.
# shellcheck source=common.sh
. "$HERE/common.sh"
# A usage error stops the bisect: git bisect run reads 2 as "bad".
USAGE_EXIT=$STOP
stop() {
	say "$*"
	exit $STOP
}

ref="" probe="" goods="" bads="" functional=0 build=$DEFAULT_BUILD image="" arch=$(host_arch) accel="" points=""
append="" timeout_s="" bin="" options_from="" append_from=""
# --gate: unset unless given (then passed on as given, even empty: compare judges it).
unset gate
# The references are file names, kept newline-separated (opt_value refuses a newline).
# At least this much must be writable in --points before a build (a build log and a point).
PROBE_KB=64
nl='
'
option() {
	case $1 in
	--good)
		opt_value ref file "$@"
		goods="$goods$ref$nl"
		;;
	--bad)
		opt_value ref file "$@"
		bads="$bads$ref$nl"
		;;
	*) usage_error "unknown argument '$1'" ;;
	esac
}
# --image, --options-from and --append-from: paths in the tree, from its top, at every step
# (the tree is checked out anew each time).
read_options '
--functional    functional    flag
--build         build         text
--image         image         text
--options-from  options_from  text
--append-from   append_from   text
--arch          arch          text
--accel         accel         text
--points        points        new_dir
--gate          gate          text
--append        append        text
--timeout       timeout_s     positive
--bin           bin           exe
' "$@"
shift "$OPTIONS_READ"

if [ "$functional" = 1 ]; then
	[ -z "$goods$bads" ] || usage_error "--functional takes no --good or --bad"
	[ -z "${gate+set}" ] || usage_error "--functional takes no --gate (the run's exit code decides)"
else
	{ [ -n "$goods" ] && [ -n "$bads" ]; } || usage_error "needs --good FILE and --bad FILE, or --functional"
fi
arch_set "$arch" || usage_error "--arch: $ARCHES, not '$arch'"
image=${image:-$kimage}
tree=$(git rev-parse --show-toplevel 2>/dev/null) || stop "not inside a git tree (run it from the tree being bisected)"
commit=$(git rev-parse --short=12 HEAD) || stop "git rev-parse HEAD failed"
points=${points:-$(dirname "$tree")/bisect-points}
make_dir --points "$points"
# From here on, whatever ends the step (Ctrl-C and SIGKILL too) stops the build or the boot
# and removes what was made for the step (common.sh, lifetime).
lifetime_begin bisect-step || exit $STOP
# Writable, with room for a log and a point: a probe of PROBE_KB written and removed.
temp_file probe "$points/.probe.XXXXXX" || stop "--points: cannot create a file in $points"
if ! err=$(dd if=/dev/zero of="$probe" bs=1024 count=$PROBE_KB 2>&1); then
	stop "--points: cannot write ${PROBE_KB} KiB in $points ($(printf '%s\n' "$err" | sed -n '1s/.*: //p'))"
fi
rm -f "$probe"
host_bin=$REPO/target/release/uring-repro
[ "$functional" = 1 ] || [ -x "$host_bin" ] || stop "$host_bin is not built (cargo build --release): it judges the points"

# The references as compare takes them, label=FILE, one a line.
refs=""
old_ifs=$IFS
set -f
IFS=$nl
for f in $goods; do refs="${refs}good=$f$nl"; done
for f in $bads; do refs="${refs}bad=$f$nl"; done
IFS=$old_ifs
set +f

# compare_refs [--bisect] [ARGUMENTS...]: uring-repro compare on --gate, the references and
# the ARGUMENTS (the new point); its exit code.
compare_refs() {
	set -- ${gate+--gate "$gate"} "$@"
	set -f
	IFS=$nl
	for r in $refs; do set -- "$@" "$r"; done
	IFS=$old_ifs
	set +f
	"$host_bin" compare "$@"
}

# The references and --gate, judged once before the first build by compare itself, so that
# its rules are the only ones (the gate's form, the references' contract, their distance):
# compare --bisect with one of the good references as the new point, its boot id dropped
# (compare counts a file once and a boot once; a point without one is a boot of its own).
# It must come out good: anything else would stop or mislead every step. A reference whose
# banner states no boot id (not a point uring-repro printed: a TSV file) is judged by plain
# compare instead, which checks all but the distance (the first step's compare --bisect
# checks that).
if [ "$functional" = 0 ]; then
	first=${goods%%"$nl"*}
	rc=0
	if grep -q '^# uring-repro .* boot_id=' "$first"; then
		sed '/^# uring-repro /s/ boot_id=[^ ]*//' "$first" >"$SCRATCH/reference.txt"
		said=$(compare_refs --bisect "new=$SCRATCH/reference.txt" 2>&1 >/dev/null) || rc=$?
		how="compare --bisect"
	else
		said=$(compare_refs 2>&1 >/dev/null) || rc=$?
		how=compare
	fi
	said=$(printf '%s\n' "$said" | sed -n '$s/^uring-repro: //;$p')
	case $how:$rc in
	*:0) ;;
	"compare --bisect:1" | "compare --bisect:125")
		stop "$first, a good reference, is not good as a new point ($said): the references cannot decide; nothing built"
		;;
	*) stop "$said ($how, before the build: nothing built)" ;;
	esac
fi

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
# options); one list, so the check before the build is of the very boot after it. A child
# of the step (run_child): stopped with it.
boot_point() {
	run_child "$HERE/boot-point.sh" --kernel "$image" -o "$point" --arch "$arch" ${accel:+--accel "$accel"} \
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
if ! run_child sh -c "$build" >>"$log" 2>&1; then
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

# The verdict line: what git bisect is told, the step's times, and its evidence: the point,
# or what came instead of one.
verdict() {
	if [ -e "$point" ]; then
		evidence="point: $point"
	elif [ "$rc" = 124 ]; then
		evidence="no point: the boot timed out"
	elif [ "$rc" = 125 ]; then
		evidence="no point: no report came back (boot-point.sh's lines above)"
	else
		evidence="no point: the run printed no report"
	fi
	say "$commit: $1 (exit $2) after $((t_build + t_boot)) s (build $t_build s, boot $t_boot s); $evidence"
	exit "$2"
}
case $rc in
0) ;;
1) [ "$functional" = 1 ] && verdict "bad: a check failed" $BAD ;;
2) stop "$commit: boot-point.sh refused its arguments (exit 2): this step cannot work" ;;
130) stop "$commit: boot-point.sh was interrupted" ;;
esac
if [ "$rc" -ne 0 ]; then
	# A run that could not run here (4), failed its checks in a performance bisect (1), a
	# boot that hung (124) or printed no report (125): this commit cannot be judged.
	verdict "cannot be judged: boot-point.sh exit $rc" $SKIP
fi
[ "$functional" = 1 ] && verdict "good: the run passed" $GOOD

# Performance: the new point against the references.
rc=0
compare_refs --bisect "new=$point" >&2 || rc=$?
case $rc in
0) verdict good $GOOD ;;
1) verdict bad $BAD ;;
125) verdict "cannot be judged" $SKIP ;;
*) stop "$commit: compare --bisect exit $rc (its line above): this step cannot work" ;;
esac
