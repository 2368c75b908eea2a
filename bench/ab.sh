#!/usr/bin/env bash
# scripts/ab.sh's time on this machine, against its targets:
#   first: an empty cache and a tree built with build-kernel.sh (its own objdir): the base's
#          build finds nothing to do, the head's rebuilds what its patch changes; no target,
#          where the time goes;
#   edit:  the head's patch edited (another change to the same file), ab run again: one
#          build (the head's; the base is as built) and one boot (the base's points are
#          reused): at most 45 s;
#   series step: the two patches as a series (--each), then both edited and the series run
#          again: two builds and two boots, each step at most 60 s.
# The changes are one-line checks in io_uring/nop.c's io_nop_prep() (a field of the SQE
# that must be 0, which uring-repro's NOPs are): n0 must move in the first run, and the
# same rows in every run. Not a timed test (this box is shared; seconds, not
# milliseconds): a measure of where the time goes, by ab's own step lines. Quote medians of
# several runs when the box is busy.
# Usage: bench/ab.sh --src KERNEL-TREE [--work DIR] [--bin PATH] [--jobs N]
#   (the kernel tests' parent tree: $CACHE/6.12.117-1~deb12u1/parent, with its objdir).
#   Run it alone on the box (flock /var/tmp/uring-repro-heavy.lock bench/ab.sh ...): it
#   builds and boots.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
readonly EDIT_TARGET=45 STEP_TARGET=60 # seconds
OBJ=.uring-repro-obj
src="" work="" bin=$REPO/target/release/uring-repro jobs=$(getconf _NPROCESSORS_ONLN)
while (($#)); do
	case $1 in
	--src) src=$(cd "$2" && pwd) ;;
	--work) work=$2 ;;
	--bin) bin=$2 ;;
	--jobs) jobs=$2 ;;
	*)
		echo "usage: bench/ab.sh --src KERNEL-TREE [--work DIR] [--bin PATH] [--jobs N]" >&2
		exit 2
		;;
	esac
	shift 2
done
[[ -f $src/io_uring/nop.c && -d $src/$OBJ ]] || {
	echo "bench/ab.sh: --src: a kernel tree with io_uring/nop.c, built with build-kernel.sh ($OBJ), not '$src'" >&2
	exit 2
}
[[ -n $work ]] || work=$(mktemp -d "${TMPDIR:-/tmp}/bench-ab.XXXXXX")
mkdir -p "$work"
[[ -x $bin ]] || cargo build --release --quiet

# The tree: the source's files hard-linked, without .git, and a copy of its objdir (as a
# user's tree that was built).
tree=$work/linux
rm -rf "$tree" "$work/cache" "$work"/run-*
mkdir "$tree"
for e in "$src"/* "$src"/.[!.]*; do
	case ${e##*/} in .git | .uring-repro-*) ;; *) cp -al "$e" "$tree/" ;; esac
done
cp -a "$src/$OBJ" "$tree/$OBJ"
# The copy's host tools made to name their new tree (scripts/common.sh).
PROG=bench/ab.sh # common.sh says it names its messages
# shellcheck source=scripts/common.sh disable=SC2034
. "$REPO/scripts/common.sh"
objdir_moved "$src/$OBJ" "$tree/$OBJ"

# check NAME FIELD [AFTER]: a patch of nop.c making FIELD of the SQE one that must be 0, on
# the tree (or on it with the patch AFTER applied), in $work/NAME.patch.
check() {
	local name=$1 field=$2 after=${3:-} d=$work/p-$1
	rm -rf "$d"
	mkdir -p "$d/a/io_uring" "$d/b/io_uring"
	cp "$tree/io_uring/nop.c" "$d/a/io_uring/nop.c"
	[[ -z $after ]] || patch -s -p1 -d "$d/a" <"$after"
	sed "/flags = READ_ONCE(sqe->nop_flags);/a\\
	if (READ_ONCE(sqe->$field))\\
		return -EINVAL;" "$d/a/io_uring/nop.c" >"$d/b/io_uring/nop.c"
	(cd "$d" && diff -u a/io_uring/nop.c b/io_uring/nop.c) >"$work/$name.patch" || true
	cmp -s "$d/a/io_uring/nop.c" "$d/b/io_uring/nop.c" && {
		echo "bench/ab.sh: could not make the patch (io_nop_prep changed?)" >&2
		exit 1
	}
	return 0
}

# run NAME ARGS...: ab, timed; its stdout and stderr kept; prints the seconds.
run() {
	local name=$1 t0 rc=0
	shift
	t0=$(date +%s.%N)
	"$REPO/scripts/ab.sh" --tree "$tree" "$@" -o "$work/run-$name" --cache "$work/cache" \
		--bin "$bin" --jobs "$jobs" >"$work/run-$name.out" 2>"$work/run-$name.err" || rc=$?
	if ((rc > 1)); then
		echo "bench/ab.sh: ab ($name) exit $rc; its last lines:" >&2
		tail -n 5 "$work/run-$name.err" >&2
		exit 1
	fi
	awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'
}
# lines NAME: run NAME's builds and boots, with their times, and what it reused.
lines() {
	sed -n 's/^ab.sh: \(\[[^]]*\] \(build\|boot\)[^:]*: [0-9.]* s\).*/\1/p; s/^ab.sh: \(\[[^]]*\] its points reused\).*/\1/p; s/^ab.sh: \(\[[^]]*\] prepared: [0-9.]* s\).*/\1/p' \
		"$work/run-$1.err" | paste -sd ';' | sed 's/;/; /g'
}
count() { grep -c "^ab.sh: \[[^]]*\] $2: " "$work/run-$1.err" || true; }
moved() {
	awk -F'\t' 'FNR == 1 { delete c; for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["verdict"] == "moved" { print (("step" in c) ? $c["step"] ":" : "") $c["profile"] }' \
		"$work/run-$1/"{ab,series}.tsv 2>/dev/null | sort -u | tr '\n' ' '
}

check one buf_index
first=$(run first --patch "$work/one.patch")
check one personality
edit=$(run edit --patch "$work/one.patch")
check two addr3 "$work/one.patch"
run series-first --patch "$work/one.patch" --patch "$work/two.patch" --each >/dev/null
check one splice_fd_in
check two file_index "$work/one.patch"
series=$(run series --patch "$work/one.patch" --patch "$work/two.patch" --each)
for r in first edit series; do
	printf '%s: %s\n  moved: %s\n' "$r" "$(lines "$r")" "$(moved "$r")"
done
builds=$(count edit build) boots=$(count edit boot)
steps=$(count series build)
awk -v f="$first" -v e="$edit" -v s="$series" -v n="$steps" -v eb="$builds" -v eo="$boots" \
	-v et="$EDIT_TARGET" -v st="$STEP_TARGET" 'BEGIN {
	printf "first: %.1f s (an empty cache, a built tree)\n", f
	printf "edit: %.1f s, %d build(s), %d boot(s) (target: at most %d s, one build, one boot)\n", e, eb, eo, et
	printf "series step: %.1f s for %d step(s) built and booted: %.1f s a step (target: at most %d s)\n", s, n, s / (n ? n : 1), st
	exit !(e <= et && eb == 1 && eo == 1 && n == 2 && s / n <= st)
}' || status=1
# Each change is a check of another SQE field in io_nop_prep(), which every NOP runs: n0
# moves in both runs. The other NOP issuers move too, but not the same ones for every field
# (measured: buf_index moved a0, k0, n0 and t0 by +2.0; personality n0, q0 and t0).
[[ " $(moved first) " == *" n0 "* && " $(moved edit) " == *" n0 "* ]] || {
	echo "bench/ab.sh: n0 did not move in the first run and in the edit's" >&2
	status=1
}
echo "kept in $work"
exit "${status:-0}"
