#!/usr/bin/env bash
# scripts/ab.sh's time on this machine, cold and warm, against its targets:
#   cold: an empty cache and a tree without build-kernel.sh's objdir: the two builds (the
#         base from nothing, the head from the base's objects) plus at most 180 s;
#   warm: both objdirs kept from the cold run, the head one .c file away from the base
#         (another change to the same file): the whole table in at most 180 s.
# The change is a one-line check in io_uring/nop.c's io_nop_prep() (a field of the SQE
# that must be 0, which uring-repro's NOPs are): ab must find n0 moved, and the same
# rows moved in both runs. Not a timed test (this box is shared; minutes, not
# milliseconds): a measure of where the time goes, by ab's own step lines.
# Usage: bench/ab.sh --src KERNEL-TREE [--work DIR] [--bin PATH] [--jobs N]
#   (the kernel tests' parent tree: $CACHE/6.12.117-1~deb12u1/parent). Run it alone on the
#   box (flock /var/tmp/uring-repro-heavy.lock bench/ab.sh ...): it builds and boots.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
readonly TARGET=180 # seconds: warm's whole run, cold's run beyond the builds
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
[[ -f $src/io_uring/nop.c ]] || {
	echo "bench/ab.sh: --src: a kernel tree with io_uring/nop.c, not '$src'" >&2
	exit 2
}
[[ -n $work ]] || work=$(mktemp -d "${TMPDIR:-/tmp}/bench-ab.XXXXXX")
mkdir -p "$work"
[[ -x $bin ]] || cargo build --release --quiet

# The tree: the source's files hard-linked, without .git and without an objdir (cold).
tree=$work/linux
rm -rf "$tree" "$work/cache" "$work"/cold "$work"/warm
mkdir "$tree"
for e in "$src"/* "$src"/.[!.]*; do
	case ${e##*/} in .git | .uring-repro-*) ;; *) cp -al "$e" "$tree/" ;; esac
done
# Two changes to nop.c, each a patch of that file alone.
patch_checking() {
	local field=$1 out=$2
	mkdir -p "$work/p/a/io_uring" "$work/p/b/io_uring"
	cp "$tree/io_uring/nop.c" "$work/p/a/io_uring/nop.c"
	sed "/flags = READ_ONCE(sqe->nop_flags);/a\\
	if (READ_ONCE(sqe->$field))\\
		return -EINVAL;" "$tree/io_uring/nop.c" >"$work/p/b/io_uring/nop.c"
	(cd "$work/p" && diff -u a/io_uring/nop.c b/io_uring/nop.c) >"$out" || true
	[[ -s $out ]] || {
		echo "bench/ab.sh: could not make the patch (io_nop_prep changed?)" >&2
		exit 1
	}
}
patch_checking buf_index "$work/cold.patch"
patch_checking personality "$work/warm.patch"

# run NAME PATCH: ab, timed; its stdout and stderr kept; prints the seconds.
run() {
	local t0 rc=0
	t0=$(date +%s.%N)
	"$REPO/scripts/ab.sh" --tree "$tree" --patch "$2" -o "$work/$1" --cache "$work/cache" \
		--bin "$bin" --jobs "$jobs" >"$work/$1.out" 2>"$work/$1.err" || rc=$?
	if ((rc > 1)); then
		echo "bench/ab.sh: ab ($1) exit $rc; its last lines:" >&2
		tail -n 5 "$work/$1.err" >&2
		exit 1
	fi
	awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'
}
# step NAME K: step K's seconds in run NAME (its `[K/8] ...: N s` line).
step() { sed -n "s|^ab.sh: \[$2/8\] [^:]*: \([0-9.]*\) s.*|\1|p" "$work/$1.err" | tail -n 1; }
moved() { awk -F'\t' 'NR > 1 && $10 == "moved" { print $1 }' "$work/$1/ab.tsv" | tr '\n' ' '; }

cold=$(run cold "$work/cold.patch")
warm=$(run warm "$work/warm.patch")
for r in cold warm; do
	printf '%s: prepare head %s + base %s s, build base %s s, build head %s s, boots %s %s %s s, table %s s; moved: %s\n' \
		"$r" "$(step $r 1)" "$(step $r 2)" "$(step $r 3)" "$(step $r 4)" "$(step $r 5)" \
		"$(step $r 6)" "$(step $r 7)" "$(step $r 8)" "$(moved $r)"
done
builds=$(awk -v a="$(step cold 3)" -v b="$(step cold 4)" 'BEGIN { print a + b }')
awk -v c="$cold" -v w="$warm" -v b="$builds" -v t="$TARGET" 'BEGIN {
	printf "cold: %.1f s = the two builds %.1f s + %.1f s (target: + at most %d s)\n", c, b, c - b, t
	printf "warm: %.1f s (target: at most %d s)\n", w, t
	exit !(c - b <= t && w <= t)
}'
[[ $(moved cold) == *n0* && $(moved cold) == "$(moved warm)" ]] || {
	echo "bench/ab.sh: the rows moved are not n0's, or not the same in both runs" >&2
	exit 1
}
echo "kept in $work"
