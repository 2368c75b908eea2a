#!/bin/sh
# ab.sh: what a kernel change costs on every io_uring path uring-repro measures, in one
# command. Two kernels (two commits of a git tree, a tree and a copy with patches applied,
# or two trees), each built with build-kernel.sh in a cache that keeps its objects (the next
# run rebuilds only what changed), booted on QEMU's instruction clock with the cost counter,
# every profile of `uring-repro suite` in one boot: base, head, base again. Then one row per
# profile and series: the change in guest instructions per pair, in locked instructions,
# and whether it moved beyond the gate (docs/ab.md: the method, the gate and its study).
#
# The user's trees are never written: each side is built from a copy in the cache, its
# files hard links to the tree's (a copy where the cache is on another filesystem); a file
# a revision or a patch changes is written anew there, which breaks its link. make decides
# by modification times, so before each build the copy is made to agree with the tree the
# objects were built from: a file whose content differs from that tree's is written anew
# (newer than every object), and a file a patch wrote with the content it had is given that
# tree's time back (nothing to rebuild for it).
#
# -o DIR appears whole or not at all: it is made beside itself and renamed into place at
# the end (RENAME_NOREPLACE). A run whose kernel could not be built or booted still leaves
# DIR, with its logs and failed.txt; a usage error or Ctrl-C leaves nothing. Ctrl-C,
# SIGTERM or SIGHUP stop every build and boot at once (130); make and QEMU never outlive
# the script, even one killed by SIGKILL (scripts/common.sh, "Lifetime").
#
# POSIX sh (checked with dash). Needs what build-kernel.sh and boot-point.sh need, git for
# --tree with revisions, patch(1) for --patch, diff and cmp (diffutils).
set -eu

PROG=ab.sh
# git, on the user's tree: never a write of its own (not even the index's stat refresh).
GIT_OPTIONAL_LOCKS=0
export GIT_OPTIONAL_LOCKS
# Defaults, named so --help and the code agree.
DEFAULT_CACHE=/var/tmp/uring-repro-ab
# The suite's run options unless RUN-OPTIONS are given: short rounds are enough on the
# instruction clock, and exact (docs/ab.md, "The run options").
DEFAULT_RUN="--cycles 64 --rounds 5 --warmups 1"
# The gate, instructions per pair: the study of docs/ab.md found unrelated changes moving
# a point by at most 0.22 where its own interval could not tell them from nothing.
DEFAULT_GATE=0.5
OBJ=.uring-repro-obj # build-kernel.sh's objdir, inside the tree it builds
IMAGE=arch/x86/boot/bzImage
# compare --tsv's columns of the kernel's locked instructions per pair, control's and test's.
LOCKED_BASE_COLUMN=control_kernel_locked
LOCKED_HEAD_COLUMN=test_kernel_locked
# Seconds between two lines saying what runs (a build or a boot never looks hung).
HEARTBEAT=5
# Exit codes.
MOVED=1 USAGE=2 CANNOT=125

usage() {
	cat <<EOF
usage: $PROG --tree DIR [--base REV] [--head REV] -o DIR [options] [-- RUN-OPTIONS]
       $PROG --tree DIR --patch FILE [--patch FILE...] -o DIR [options] [-- RUN-OPTIONS]
       $PROG --base-src DIR --head-src DIR -o DIR [options] [-- RUN-OPTIONS]

Builds two kernels, boots each on QEMU's instruction clock (base, head, base again), every
profile in one boot, and prints one row per profile: guest instructions per pair on each
side, the change, locked instructions, and a verdict.

  --tree DIR       a kernel tree; with revisions (a git tree): base and head are those
                   commits (default HEAD~1 and HEAD; uncommitted changes are left out);
                   with --patch: base is the tree as it is, head the same with the
                   patches applied (patch -p1, no fuzz), in order
  --patch FILE     a patch for head (repeat it: applied in order)
  --base-src DIR   the base's kernel tree, as it is
  --head-src DIR   the head's
  -o DIR           where the points, logs, ab.tsv and the mail drafts go (made; never
                   overwritten)
  --profiles LIST  the suite's items (default: every profile and shared variant)
  --cache DIR      the copies and object directories, kept for the next run (default
                   $DEFAULT_CACHE); not inside a tree
  --jobs N         make -jN for each build (default: the online CPUs)
  --bin PATH       the uring-repro booted (default: this checkout's release build)
  --gate INSN      instructions per pair a change must reach to be called moved (default
                   $DEFAULT_GATE); and compare's 95% interval must exclude 0
  --timeout S      seconds per boot (boot-point.sh's default otherwise)
  --no-cost        boot without the cost counter (a QEMU that does not take it): no
                   locked counts, no functions
  -h, --help       this text

RUN-OPTIONS are the suite's (default: $DEFAULT_RUN).
Paths are taken from the directory it is started in.

exit: 0 no profile moved; 1 one moved (or ran on one side and not the other); 2 a usage
      error or unusable input (not a kernel tree, a revision or patch that does not apply,
      an unknown profile, an -o that exists; nothing left behind); 125 a kernel could not be
      built or booted (the log's path and its last lines; DIR kept with its logs); 130
      interrupted (every build and boot stopped, nothing left behind).
EOF
}

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(dirname "$HERE")
# say, usage_error, opt_value, the lifetime: what the scripts share.
# shellcheck source=common.sh
. "$HERE/common.sh"
# ab's own sides, trees and table (sourced: one concern a file).
# shellcheck source=ab-sides.sh
. "$HERE/ab-sides.sh"
# shellcheck source=ab-table.sh
. "$HERE/ab-table.sh"

tree="" base_rev="" head_rev="" patches="" base_src="" head_src="" out="" profiles=""
cache=$DEFAULT_CACHE jobs=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
bin=$REPO/target/release/uring-repro gate=$DEFAULT_GATE timeout_s="" cost=1 patch=""
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
	--no-cost)
		cost=0
		shift
		continue
		;;
	--tree) opt_value tree dir "$@" ;;
	--base) opt_value base_rev text "$@" ;;
	--head) opt_value head_rev text "$@" ;;
	--patch)
		opt_value patch file "$@"
		patches="$patches$patch$nl"
		;;
	--base-src) opt_value base_src dir "$@" ;;
	--head-src) opt_value head_src dir "$@" ;;
	-o) opt_value out text "$@" ;;
	--profiles) opt_value profiles text "$@" ;;
	--cache) opt_value cache new_dir "$@" ;;
	--jobs) opt_value jobs positive "$@" ;;
	--bin) opt_value bin exe "$@" ;;
	--gate) opt_value gate text "$@" ;;
	--timeout) opt_value timeout_s positive "$@" ;;
	*) usage_error "unknown argument '$1'" ;;
	esac
	shift 2
done
# shellcheck disable=SC2086 # DEFAULT_RUN's words
[ $# -gt 0 ] || set -- $DEFAULT_RUN
[ -n "$out" ] || usage_error "-o DIR is required"
[ "$out" = / ] || out=${out%/}
opt_value out new_file -o "$out"

# The form, from the options given.
if [ -n "$tree" ] && [ -z "$base_src$head_src" ]; then
	if [ -n "$patches" ]; then
		[ -z "$base_rev$head_rev" ] || usage_error "--patch takes the tree as it is: no --base or --head"
		form=patches
	else
		form=revisions base_rev=${base_rev:-HEAD~1} head_rev=${head_rev:-HEAD}
	fi
elif [ -n "$base_src" ] && [ -n "$head_src" ] && [ -z "$tree$patches$base_rev$head_rev" ]; then
	form=trees
else
	usage_error "one of: --tree DIR [--base REV] [--head REV], --tree DIR --patch FILE..., --base-src DIR --head-src DIR"
fi
case $gate in
'' | *[!0-9.]* | .* | *. | *.*.*) usage_error "--gate: instructions per pair, a decimal such as 0.5, not '$gate'" ;;
esac
[ -x "$bin" ] || usage_error "not an executable file: $bin (cargo build --release, or name it with --bin)"

# The sides' sources, checked: kernel trees, the revisions commits, the cache outside them.
case $form in
revisions)
	kernel_tree "$tree"
	command -v git >/dev/null 2>&1 || usage_error "--base/--head: git not found"
	top=$(git -C "$tree" rev-parse --show-toplevel 2>/dev/null) ||
		refuse "--tree: $tree is not a git tree (revisions need one; --patch or --base-src/--head-src take a tree as it is)"
	[ "$(cd "$top" && pwd -P)" = "$(cd "$tree" && pwd -P)" ] ||
		refuse "--tree: $tree is inside the git tree $top: name its top"
	base_sha=$(commit_of "$base_rev" --base)
	head_sha=$(commit_of "$head_rev" --head)
	base_from=$tree head_from=$tree
	;;
patches)
	kernel_tree "$tree"
	clean_tree "$tree"
	command -v patch >/dev/null 2>&1 || usage_error "--patch: patch(1) not found (Debian: patch)"
	base_from=$tree head_from=$tree
	;;
trees)
	kernel_tree "$base_src"
	kernel_tree "$head_src"
	clean_tree "$base_src"
	clean_tree "$head_src"
	base_from=$base_src head_from=$head_src
	;;
esac
for t in "$base_from" "$head_from"; do
	case $(abs_real "$cache")/ in "$(abs_real "$t")"/*)
		usage_error "--cache: $cache is inside $t (its copies would copy themselves)"
		;;
	esac
done
for tool in diff cmp flock; do
	command -v "$tool" >/dev/null 2>&1 || usage_error "$tool not found (Debian: diffutils, util-linux)"
done

# From here on, whatever ends the script (Ctrl-C and SIGKILL too) stops every build and
# boot and removes what was made for the run: SCRATCH, and the directory beside DIR.
lifetime_begin ab || exit $USAGE
temp_dir work "$(dirname "$out")/.$(basename "$out").XXXXXX" ||
	usage_error "-o: cannot create a directory in $(dirname "$out") (not writable?)"
chmod "$(printf %o $((0777 & ~$(umask))))" "$work"

# What boot-point.sh needs beyond the images, checked before anything is built: QEMU and
# its instruction clock, the binary, the suite's options and LIST (the binary's own check),
# and the counter (built with gcc, and QEMU asked whether it takes it).
check_boots "$@"
make_dir --cache "$cache"
exec 8>>"$cache/.lock"
if ! flock -n 8; then
	say "waiting for another ab.sh to finish with $cache"
	run_child flock 8
fi
for side in base head; do slot_recover "$side"; done

# The run, step by step (the ones whose inputs are ready run at once: the two builds, and
# the base's boot beside the head's build).
run_steps "$@"

# The table: ab.tsv, compare's text per row, the mail drafts of the rows that moved.
step_begin 8 "compare"
make_table
step_end 8
step_begin 9 "report"
make_mails
step_end 9
publish || exit $USAGE
print_table
[ "$moved" = 0 ] || exit $MOVED
exit 0
