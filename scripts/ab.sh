#!/bin/sh
# ab.sh: what a kernel change costs on every io_uring path uring-repro measures, in one
# command. Two kernels (two commits of a git tree, a tree and a copy with patches applied,
# or two trees), each built with build-kernel.sh in a cache that keeps its objects (the next
# run rebuilds only what changed), booted on QEMU's instruction clock with the cost counter,
# every profile of `uring-repro suite` in one boot: base, head, base again. Then the
# binary's own judge, `uring-repro ab`, makes the table from the boots' points: one row per
# profile and series, the change in guest instructions per pair, in locked instructions,
# and whether it moved beyond the gate (docs/ab.md: the method, the gate and its study).
# This script builds, boots and cleans up; it reads none of what the binary writes.
#
# The user's trees are never written: each side is built from a copy in the cache, its
# files hard links to the tree's (a copy where the cache is on another filesystem); a file
# a revision or a patch changes is written anew there, which breaks its link. make decides
# by modification times, so before each build the copy is made to agree with the tree the
# objects were built from: a file whose content differs from that tree's is written anew
# (newer than every object), and a file a patch wrote with the content it had is given that
# tree's time back (nothing to rebuild for it). A hard link shares its file with the user,
# who may rewrite it in place (cp -p, rsync --inplace, a restore) under an older time: so
# each build's copy records every file's size and modification time (.uring-repro-built),
# and a file that no longer has them was rewritten since: it is written anew too. Whatever
# goes into the cache arrives whole or not at all: an object directory is copied beside its
# place and renamed into it, a copy becomes the slot's only once it is complete, and a cache
# of another layout (an older ab.sh's) is refused, naming what to delete.
#
# -o DIR appears whole or not at all: it is made beside itself and renamed into place at
# the end (RENAME_NOREPLACE). A run whose kernel could not be built or booted still leaves
# DIR, with its logs and failed.txt; a usage error or Ctrl-C leaves nothing. Ctrl-C,
# SIGTERM or SIGHUP stop every build and boot at once (130); make and QEMU never outlive
# the script, even one killed by SIGKILL (scripts/common.sh, "Lifetime"). Ctrl-C does
# not reach one started with SIGINT ignored (a script's background job): it says so on a
# terminal; SIGTERM or SIGHUP then stop it and everything it started.
#
# POSIX sh (checked with dash). Needs what build-kernel.sh and boot-point.sh need, git for
# --tree with revisions, patch(1) for --patch, diff, cmp and comm, and GNU find.
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
# A slot's record of what its objects were built from: every file's path, size and
# modification time, as the build began.
BUILT=.uring-repro-built
# The cache's layout, in a file at its top: a cache without it (an older ab.sh's, whose
# copies could be cut short) is refused rather than trusted.
LAYOUT=.uring-repro-ab
LAYOUT_TEXT="uring-repro ab cache, layout 2: slots whose copies arrive whole"
# Seconds between two lines saying what runs (a build or a boot never looks hung).
HEARTBEAT=5
# The steps, numbered as the progress lines name them.
STEPS=8
# Exit codes.
USAGE=2 CANNOT=125

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
  --bin PATH       the uring-repro booted, and the judge (default: this checkout's release
                   build)
  --gate INSN      instructions per pair a change must reach beyond the base's spread to
                   be called moved (default $DEFAULT_GATE); and its 95% interval round by
                   round must exclude 0
  --timeout S      seconds per boot (boot-point.sh's default otherwise)
  --no-cost        boot without the cost counter (a QEMU that does not take it): no
                   locked counts, no functions
  -h, --help       this text

RUN-OPTIONS are the suite's (default: $DEFAULT_RUN), of two rounds or more.
Paths are taken from the directory it is started in.

exit: 0 no profile moved; 1 one moved (or ran on one side and not the other); 2 a usage
      error or unusable input, before anything is built (not a kernel tree, a revision or
      patch that does not apply, an empty patch, an unknown profile, run options of one
      round, a --bin that is no uring-repro, an -o that exists, a cache of another
      layout; nothing left behind); 125 a kernel could not be built or booted (the log's
      path and its last lines; DIR kept with its logs), or no profile moved and one could
      not be judged (it skipped or failed, the base's boots disagree); 130 interrupted
      (every build and boot stopped, nothing left behind).
EOF
}

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(dirname "$HERE")
# say, usage_error, opt_value, the lifetime, objdir_moved: what the scripts share.
# shellcheck source=common.sh
. "$HERE/common.sh"

tree="" base_rev="" head_rev="" patches="" base_src="" head_src="" out="" profiles="" work=""
cache=$DEFAULT_CACHE jobs=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
bin=$REPO/target/release/uring-repro gate=$DEFAULT_GATE timeout_s="" cost=1 patch=""
nl='
'
tab=$(printf '\t')
option() {
	case $1 in
	--no-cost) cost=0 TOOK=1 ;;
	--tree) opt_value tree dir "$@" ;;
	--base) opt_value base_rev text "$@" ;;
	--head) opt_value head_rev text "$@" ;;
	--patch)
		opt_value patch file "$@"
		# A patch that changes nothing measures nothing: it is a mistake, not a change.
		[ -s "$patch" ] || usage_error "--patch $2: an empty file (a patch changes something)"
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
}
read_options "$@"
shift "$OPTIONS_READ"
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
# The binary boots and judges: it must be uring-repro (one that runs here: x86_64).
version=$("$bin" --version 2>/dev/null </dev/null | head -n 1) || true
case $version in
"uring-repro "*) ;;
*) usage_error "--bin $bin: not a uring-repro binary (its --version printed '$version')" ;;
esac
# The gate and the run options, as the judge will take them, before anything is built.
"$bin" ab --check --gate-insn "$gate" -- "$@" || exit "$USAGE"

# ---------------------------------------------------------------------------------------
# The sources.

# refuse WHY: unusable input (a tree, a revision, a patch): one line, exit 2.
refuse() {
	say "$*"
	exit "$USAGE"
}

# kernel_tree DIR: DIR is a kernel tree build-kernel.sh can build, else refused.
kernel_tree() {
	if ! grep -q '^VERSION = [0-9]' "$1/Makefile" 2>/dev/null || ! grep -q '^PATCHLEVEL = [0-9]' "$1/Makefile" ||
		[ ! -f "$1/scripts/kconfig/merge_config.sh" ] || [ ! -d "$1/arch/x86" ]; then
		refuse "$1 is not a kernel tree (no top Makefile with VERSION and PATCHLEVEL, scripts/kconfig/merge_config.sh or arch/x86)"
	fi
}

# clean_tree DIR: no build of its own in DIR (kbuild refuses to build such a tree into an
# objdir), else refused.
clean_tree() {
	if [ -e "$1/.config" ] || [ -d "$1/include/config" ]; then
		refuse "$1 has a build in the tree itself (.config): kbuild builds it nowhere else; make mrproper there first"
	fi
}

# commit_of REV OPTION: the commit REV names in the tree, else refused naming OPTION.
commit_of() {
	git -C "$tree" rev-parse --verify --quiet "$1^{commit}" 2>/dev/null ||
		refuse "$2: '$1' is not a commit of $tree"
}

# abs_real PATH: PATH with its symlinks resolved, as far as it exists.
abs_real() {
	_ar_p=$1 _ar_rest=""
	while [ ! -d "$_ar_p" ]; do
		_ar_rest=/${_ar_p##*/}$_ar_rest
		_ar_p=$(dirname "$_ar_p")
	done
	printf '%s%s\n' "$(cd "$_ar_p" && pwd -P)" "$_ar_rest"
}

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
for tool in diff cmp comm flock find; do
	command -v "$tool" >/dev/null 2>&1 || usage_error "$tool not found (Debian: diffutils, coreutils, util-linux, findutils)"
done

# ---------------------------------------------------------------------------------------
# The cache: a slot per side, CACHE/base and CACHE/head, each holding tree/, the copy last
# built, with build-kernel.sh's objdir inside (kbuild's paths then stay relative, so an
# objdir copied into another copy of the same tree builds there incrementally), and its
# record, tree/$BUILT. A run makes the side's new copy beside it (stage/), makes it agree
# with the tree its objects come from, moves the objdir in, records it and puts stage/ in
# tree/'s place.

# cache_layout: the cache is of this layout (a new one gets the mark), else refused.
cache_layout() {
	if [ -f "$cache/$LAYOUT" ] && [ "$(cat "$cache/$LAYOUT")" = "$LAYOUT_TEXT" ]; then
		return 0
	fi
	if [ -e "$cache/base" ] || [ -e "$cache/head" ]; then
		usage_error "--cache $cache holds copies an older ab.sh made, which may be cut short: delete it (rm -rf $cache) or name another --cache"
	fi
	printf '%s\n' "$LAYOUT_TEXT" >"$cache/$LAYOUT.new" && mv -f "$cache/$LAYOUT.new" "$cache/$LAYOUT"
}

# slot_recover SIDE: a swap that was cut short (stage/, recorded whole, never took tree/'s
# place) finished; a tree/ without its record (cut short before it was whole) removed, and
# whatever else was left half-made.
slot_recover() {
	_sr=$cache/$1
	if [ -f "$_sr/stage/$BUILT" ] && [ ! -f "$_sr/tree/$BUILT" ]; then
		rm -rf "$_sr/tree"
		mv "$_sr/stage" "$_sr/tree"
	fi
	rm -rf "$_sr/stage" "$_sr/old"
	[ ! -d "$_sr/tree" ] || [ -f "$_sr/tree/$BUILT" ] || rm -rf "$_sr/tree"
}

# swap SIDE: stage/ becomes the slot's tree/.
swap() {
	[ ! -d "$cache/$1/tree" ] || mv "$cache/$1/tree" "$cache/$1/old"
	mv "$cache/$1/stage" "$cache/$1/tree"
	rm -rf "$cache/$1/old"
}

# listing DIR: every file of DIR but the objdir and the record, with its size and
# modification time, one a line, sorted.
listing() {
	(cd "$1" && find . -path "./$OBJ" -prune -o -path "./$BUILT" -prune -o -type f \
		-printf '%P\t%s\t%T@\n') | LC_ALL=C sort
}

# record DIR: DIR's record of what its objects are built from (written beside, then
# renamed: whole or absent).
record() {
	if ! { listing "$1" >"$1/$BUILT.new" && mv -f "$1/$BUILT.new" "$1/$BUILT"; }; then
		cannot "could not record what $1 is built from"
	fi
}

# rewritten SIDE: $SCRATCH/SIDE.rewritten, the files of the slot's tree whose size or
# modification time is not the one recorded as its last build began: rewritten since, in
# place (a hard link shares its file with the user's tree), so they no longer hold what
# their objects were built from.
rewritten() {
	: >"$SCRATCH/$1.rewritten"
	[ -f "$cache/$1/tree/$BUILT" ] || return 0
	listing "$cache/$1/tree" >"$SCRATCH/$1.now"
	LC_ALL=C comm -13 "$cache/$1/tree/$BUILT" "$SCRATCH/$1.now" | cut -f 1 >"$SCRATCH/$1.rewritten"
}

# copy_objdir FROM TO: the object directory FROM copied to TO, whole or not at all (beside
# it, then renamed), made to name its own tree (common.sh: its host tools not rebuilt).
copy_objdir() {
	rm -rf "$2.partial"
	cp -a "$1" "$2.partial" || cannot "could not copy $1"
	objdir_moved "$1" "$2.partial" || cannot "could not rename the tools of $2"
	mv "$2.partial" "$2"
}

# make_stage SIDE FROM: the slot's stage/, FROM's files hard-linked (copied where the cache
# is on another filesystem) but .git and the objdir, then the side's changes: the revision
# (git) or the patches (head). $SCRATCH/SIDE.touched: the files they wrote, one a line.
make_stage() {
	_ms=$cache/$1/stage
	rm -rf "$_ms"
	mkdir -p "$_ms"
	: >"$SCRATCH/$1.touched"
	_ms_cp="cp -al"
	ln "$2/Makefile" "$_ms/.link-test" 2>/dev/null || _ms_cp="cp -a"
	rm -f "$_ms/.link-test"
	for _ms_e in "$2"/* "$2"/.[!.]* "$2"/..?*; do
		[ -e "$_ms_e" ] || [ -L "$_ms_e" ] || continue
		case ${_ms_e##*/} in .git | "$OBJ") continue ;; esac
		$_ms_cp "$_ms_e" "$_ms/" || cannot "could not copy $_ms_e into $_ms"
	done
	case $form:$1 in
	revisions:base) at_revision base "$base_sha" "$2" "$_ms" ;;
	revisions:head) at_revision head "$head_sha" "$2" "$_ms" ;;
	patches:head) with_patches "$_ms" ;;
	esac
}

# at_revision SIDE SHA TREE STAGE: STAGE (a copy of TREE's work tree) made commit SHA: what
# git ignores removed (an in-tree build's files), then the difference between the commit
# and the work tree applied in reverse.
at_revision() {
	(cd "$3" && git ls-files -z -o -i --exclude-standard --directory) |
		(cd "$4" && xargs -0 -r rm -rf --)
	# The user's own settings must not change the difference: no external diff or
	# textconv, no colour, no renames (a deletion and an addition), every path from the top.
	# A file's ctime is not taken as a change: hard links to it (the copies) change it, and
	# git would read every file again (it may not write the index it refreshed).
	_ar_opts="--no-ext-diff --no-textconv --no-color --no-renames --no-relative"
	# shellcheck disable=SC2086 # the options, one word each
	git -C "$3" -c core.trustctime=false diff $_ar_opts --name-only "$2" -- \
		>"$SCRATCH/$1.touched" || cannot "git diff $2 failed in $3"
	# shellcheck disable=SC2086
	git -C "$3" -c core.trustctime=false diff $_ar_opts --binary --src-prefix=a/ --dst-prefix=b/ \
		"$2" -- >"$SCRATCH/$1.diff" || cannot "git diff $2 failed in $3"
	[ -s "$SCRATCH/$1.diff" ] || return 0
	(cd "$4" && GIT_CEILING_DIRECTORIES=$(dirname "$4") git apply -R --whitespace=nowarn \
		"$SCRATCH/$1.diff") >"$SCRATCH/$1.apply" 2>&1 ||
		cannot "the difference between $2 and the work tree of $3 does not apply to its copy: $(head -n 1 "$SCRATCH/$1.apply")"
}

# with_patches STAGE: the patches applied to STAGE in order, each checked first (patch
# --dry-run): one that does not apply is refused naming it, the tree with the patches
# applied before it, and its first hunk that failed. No fuzz: a hunk applies where its
# context is, or not at all.
with_patches() {
	printf '%s' "$patches" >"$SCRATCH/patches"
	_wp_before=""
	while IFS= read -r _wp; do
		if ! _wp_said=$(patch -p1 --forward --batch --fuzz=0 -d "$1" -i "$_wp" --dry-run </dev/null 2>&1); then
			_wp_where=$(printf '%s\n' "$_wp_said" | awk '/^checking file / { f = substr($0, 15) }
				/^Hunk #[0-9]+ FAILED at / { print f ", hunk #" substr($2, 2) " (at line " $5 + 0 ")"; exit }')
			[ -n "$_wp_where" ] || _wp_where=$(printf '%s\n' "$_wp_said" | grep -v '^checking file ' | head -n 1)
			refuse "--patch $_wp does not apply to $tree${_wp_before:+ with $_wp_before applied}: $_wp_where"
		fi
		printf '%s\n' "$_wp_said" | sed -n 's/^checking file //p' >>"$SCRATCH/head.touched"
		patch -p1 --forward --batch --fuzz=0 -d "$1" -i "$_wp" --no-backup-if-mismatch -s \
			</dev/null >"$SCRATCH/patch.out" 2>&1 ||
			cannot "--patch $_wp: patch failed after its dry run: $(head -n 1 "$SCRATCH/patch.out")"
		_wp_before="$_wp_before${_wp_before:+, }${_wp##*/}"
	done <"$SCRATCH/patches"
}

# reconcile SIDE REF: the slot's stage/ made to agree with REF, the tree the objects it is
# to get were built from. A file the side's changes wrote with REF's content gets REF's
# time (nothing to rebuild); every file whose content is not REF's, or that REF lacks, or
# that was rewritten since REF's build ($SCRATCH/SIDE.rewritten), is written anew, newer
# than every object: it may be a link to one of the user's, or a file a patch wrote, older
# than the objects made from another content (the base's, built after the head's patch was
# applied).
reconcile() {
	_rc_s=$cache/$1/stage
	while IFS= read -r _rc_f; do
		if [ -f "$_rc_s/$_rc_f" ] && [ -f "$2/$_rc_f" ] && cmp -s "$_rc_s/$_rc_f" "$2/$_rc_f"; then
			touch -r "$2/$_rc_f" "$_rc_s/$_rc_f"
		fi
	done <"$SCRATCH/$1.touched"
	_rc_st=0
	LC_ALL=C diff -rq --no-dereference -x "$OBJ" -x .git -x "$BUILT" "$_rc_s" "$2" \
		>"$SCRATCH/$1.differ" 2>&1 || _rc_st=$?
	[ "$_rc_st" -le 1 ] || cannot "diff of $_rc_s and $2 failed: $(grep -v '^Files \|^Only in \|^File ' "$SCRATCH/$1.differ" | head -n 1)"
	{
		LC_ALL=C awk -v s="$_rc_s/" '
			/^Files / && substr($0, 7, length(s)) == s { p = substr($0, 7 + length(s)); sub(/ and .*/, "", p); print p }
			/^File / && substr($0, 6, length(s)) == s { p = substr($0, 6 + length(s)); sub(/ is a .*/, "", p); print p }
			/^Only in / && (substr($0, 9, length(s)) == s || substr($0, 9, length(s) - 1) ":" == substr(s, 1, length(s) - 1) ":") {
				d = substr($0, 9); i = index(d, ": "); p = substr(d, 1, i - 1) "/" substr(d, i + 2)
				print substr(p, length(s) + 1) }
		' "$SCRATCH/$1.differ"
		cat "$SCRATCH/$1.rewritten" 2>/dev/null
	} >"$SCRATCH/$1.fresh"
	while IFS= read -r _rc_f; do
		if [ -d "$_rc_s/$_rc_f" ] && [ ! -L "$_rc_s/$_rc_f" ]; then
			find "$_rc_s/$_rc_f" -type f
		elif [ -f "$_rc_s/$_rc_f" ] && [ ! -L "$_rc_s/$_rc_f" ]; then
			printf '%s\n' "$_rc_s/$_rc_f"
		fi
	done <"$SCRATCH/$1.fresh" | LC_ALL=C sort -u >"$SCRATCH/$1.files"
	while IFS= read -r _rc_f; do
		{ cp -- "$_rc_f" "$_rc_f.ab-new" && mv -f -- "$_rc_f.ab-new" "$_rc_f"; } ||
			cannot "could not write $_rc_f anew"
	done <"$SCRATCH/$1.files"
}

# prepare SIDE FROM: step 1 or 2: the slot's tree made the side's, its objects from the
# slot's last build, else from the source tree's own objdir, else (head) from the base's
# once it is built, else none (a build from nothing): SEED says which.
prepare() {
	rewritten "$1"
	make_stage "$1" "$2"
	_pr_slot=$cache/$1
	if [ -d "$_pr_slot/tree/$OBJ" ]; then
		reconcile "$1" "$_pr_slot/tree"
		mv "$_pr_slot/tree/$OBJ" "$_pr_slot/stage/$OBJ"
		SEED=slot
	elif [ -d "$2/$OBJ" ]; then
		: >"$SCRATCH/$1.rewritten"
		reconcile "$1" "$2"
		copy_objdir "$2/$OBJ" "$_pr_slot/stage/$OBJ"
		SEED=source
	elif [ "$1" = head ]; then
		SEED=base
	else
		SEED=none
	fi
	record "$_pr_slot/stage"
	swap "$1"
}

# seed_from_base: the head's tree made to agree with the base's, and the base's objects
# copied in (after the base's build: its first build then rebuilds only what differs).
seed_from_base() {
	mv "$cache/head/tree" "$cache/head/stage"
	: >"$SCRATCH/head.rewritten"
	reconcile head "$cache/base/tree"
	copy_objdir "$cache/base/tree/$OBJ" "$cache/head/stage/$OBJ"
	record "$cache/head/stage"
	swap head
}

# cannot WHY: the run cannot go on (exit 125), what it made kept (fail_run); in a job, the
# script is told and ends the run.
cannot() {
	say "$*"
	fail_run "$*"
}

describe_side() {
	case $form:$1 in
	revisions:base) printf '%s at %.12s' "$tree" "$base_sha" ;;
	revisions:head) printf '%s at %.12s' "$tree" "$head_sha" ;;
	patches:base) printf '%s as it is' "$tree" ;;
	patches:head) printf '%s with %s' "$tree" "$(printf '%s' "$patches" | sed 's|.*/||' | paste -sd ' ')" ;;
	trees:base) printf '%s as it is' "$base_src" ;;
	trees:head) printf '%s as it is' "$head_src" ;;
	esac
}
describe_seed() {
	case $1 in
	slot) echo "the last build's, kept in the cache" ;;
	source) echo "a copy of the tree's own $OBJ" ;;
	base) echo "the base's, once built" ;;
	none) echo "none yet: a build from nothing" ;;
	esac
}

# ---------------------------------------------------------------------------------------
# The steps. 1 and 2 prepare the sides, head and base; then each side is a job of its own, its steps one
# after another, the two at once: 3 build base, 5 boot base, 7 boot base again; 4 build
# head (after the base's build when it starts from its objects), 6 boot head. The
# instruction clock's counts do not depend on the host's load, nor a boot's on when it
# starts (its identity is its own, from the host). 8: the table.

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# begin K NAME [LOG]: step K's first line; what runs (for the heartbeat) until ended.
begin() {
	say "[$1/$STEPS] $2"
	printf '%s\t%s\t%s\n' "$2" "$(now)" "${3:-}" >"$SCRATCH/running/$1"
}

# ended K [NOTE]: step K's last line, its time.
ended() {
	IFS=$tab read -r _en_name _en_t _en_log <"$SCRATCH/running/$1"
	rm -f "$SCRATCH/running/$1"
	say "[$1/$STEPS] $_en_name: $(secs "$_en_t") s${2:+, $2}"
}

# failed K WHAT HOW LOG: step K failed (WHAT: failed, timed out; HOW: its status): its
# line, the last lines of its LOG, and the run ends (fail_run).
failed() {
	IFS=$tab read -r _fd_name _fd_t _fd_log <"$SCRATCH/running/$1"
	say "[$1/$STEPS] $_fd_name $2 $3 after $(secs "$_fd_t") s; the last lines of $out/$4:"
	grep -v '^$' "$work/$4" | tail -n 12 | sed 's/^/  | /' >&2
	fail_run "$_fd_name $2: $out/$4"
}

# build K SIDE: step K, the side's build (its copy recorded as the build begins).
build() {
	begin "$1" "build $2" "$work/build-$2.log"
	record "$cache/$2/tree"
	_bd_rc=0
	run_child "$HERE/build-kernel.sh" --src "$cache/$2/tree" --jobs "$jobs" \
		>"$work/build-$2.log" 2>&1 || _bd_rc=$?
	[ "$_bd_rc" -eq 0 ] || failed "$1" failed "(exit $_bd_rc)" "build-$2.log"
	ended "$1"
}

# boot K SIDE DIR RUN-OPTIONS: step K, a boot of the side's kernel into the points of DIR.
boot() {
	_bt_k=$1 _bt_obj=$cache/$2/tree/$OBJ _bt_dir=$3 _bt_rc=0
	shift 3
	begin "$_bt_k" "boot $(describe_boot "$_bt_dir")"
	run_child "$HERE/boot-point.sh" --kernel "$_bt_obj/$IMAGE" -o "$work/$_bt_dir" --accel icount \
		${cost_map:+--cost "$_bt_obj/System.map"} --bin "$bin" ${timeout_s:+--timeout "$timeout_s"} \
		-- suite ${profiles:+--profiles "$profiles"} "$@" >"$work/boot-$_bt_dir.log" 2>&1 || _bt_rc=$?
	_bt_log=boot-$_bt_dir.log _bt_limit="boot-point.sh's default timeout"
	[ -z "$timeout_s" ] || _bt_limit="--timeout $timeout_s"
	case $_bt_rc in
	0 | 1 | 4) ended "$_bt_k" "$(tail -n 1 "$work/$_bt_log" | sed 's/^boot-point.sh: [^:]*: //')" ;;
	124) failed "$_bt_k" "timed out" "($_bt_limit)" "$_bt_log" ;;
	*) failed "$_bt_k" failed "(boot-point.sh exit $_bt_rc)" "$_bt_log" ;;
	esac
}
describe_boot() {
	case $1 in base-1) echo base ;; head) echo head ;; base-2) echo "base again" ;; esac
}

# base_job RUN-OPTIONS: the base's steps (a job); its build, unless made already.
base_job() {
	job_begin base
	in_job=base
	[ "$base_built" = 1 ] || build 3 base
	boot 5 base base-1 "$@"
	boot 7 base base-2 "$@"
}

# head_job RUN-OPTIONS: the head's steps (a job).
head_job() {
	job_begin head
	in_job="head"
	[ "$seed_head" != base ] || seed_from_base
	build 4 head
	boot 6 head head "$@"
}

# heartbeat: every HEARTBEAT seconds, one line of what runs, how long, and a build's make
# target (or what build-kernel.sh says it does); ends with the script.
heartbeat() {
	job_begin heartbeat
	in_job=heartbeat
	# The nap is waited for (wait, unlike a command, ends as a signal comes).
	while start_child sleep "$HEARTBEAT" && wait_child "$CHILD" && kill -0 "$MAIN" 2>/dev/null; do
		_hb=""
		for _hb_f in "$SCRATCH"/running/*; do
			[ -f "$_hb_f" ] || continue
			IFS=$tab read -r _hb_name _hb_t _hb_log <"$_hb_f" 2>/dev/null || continue
			_hb_what=""
			[ -z "$_hb_log" ] || _hb_what=$(sed -n 's/^  \([A-Z][A-Z0-9_]*\)  *\([^ ].*\)$/\1 \2/p; s/^build-kernel.sh: \([a-z]*\) .*/\1/p' \
				"$_hb_log" 2>/dev/null | tail -n 1)
			_hb="$_hb${_hb:+; }$_hb_name $(secs "$_hb_t") s${_hb_what:+ ($_hb_what)}"
		done
		[ -z "$_hb" ] || say "... $_hb"
	done
}

# finish JOB PID: the job waited for; when one fails it says so (failed.txt in the run's
# directory) and signals the script (USR1), whose wait that ends: the run ends at once.
finish() {
	while :; do
		_fi_rc=0
		wait "$2" || _fi_rc=$?
		[ ! -s "$work/failed.txt" ] || fail_run "$(cat "$work/failed.txt")"
		child_running "$2" || break
	done
	wait_child "$2" 2>/dev/null || true
	[ "$_fi_rc" -eq 0 ] || fail_run "the $1's steps ended with status $_fi_rc"
}

# fail_run WHY: the run ends with 125: every build and boot stopped, DIR published with
# what was made (the logs) and failed.txt. In a job, the script is told instead, and ends
# the run itself.
fail_run() {
	if [ -n "$in_job" ]; then
		# failed.txt (the first job to fail writes it), then the script is told.
		[ -s "$work/failed.txt" ] || printf '%s\n' "$1" >"$work/failed.txt"
		kill -USR1 "$MAIN" 2>/dev/null || true
		exit "$CANNOT"
	fi
	trap '' USR1
	stop_children
	[ -s "$work/failed.txt" ] || printf '%s\n' "$1" >"$work/failed.txt"
	publish || exit "$CANNOT"
	say "$out: the logs and what was made, failed.txt says why"
	exit "$CANNOT"
}

# publish: the run's directory renamed to DIR, never over anything (RENAME_NOREPLACE);
# status 1, after a line saying why, when it cannot be (the run is then kept where it is).
publish() {
	if ! _pb_err=$(mv -n -T "$work" "$out" 2>&1) || [ -e "$work" ]; then
		if [ -e "$out" ] || [ -L "$out" ]; then
			say "$out appeared meanwhile (never overwritten); this run is kept in $work"
		else
			say "$out: cannot rename $work into place (${_pb_err##*: }); kept there"
		fi
		temp_forget "$work"
		return 1
	fi
	temp_forget "$work"
}

# ---------------------------------------------------------------------------------------
# From here on, whatever ends the script (Ctrl-C and SIGKILL too) stops every build and
# boot and removes what was made for the run: SCRATCH, and the directory beside DIR.
MAIN=$$
lifetime_begin ab || exit $USAGE
temp_dir work "$(dirname "$out")/.$(basename "$out").XXXXXX" ||
	usage_error "-o: cannot create a directory in $(dirname "$out") (not writable?)"
chmod "$(printf %o $((0777 & ~$(umask))))" "$work"
mkdir "$SCRATCH/running"

# What boot-point.sh needs beyond the images, checked before anything is built: QEMU and
# its instruction clock, the binary, the suite's options and LIST (the binary's own check),
# and the counter (built with gcc, and QEMU asked whether it takes it).
_cb_rc=0
_cb_said=$("$HERE/boot-point.sh" --check --kernel "$SCRATCH/image" -o "$SCRATCH/check" \
	--accel icount --bin "$bin" -- suite ${profiles:+--profiles "$profiles"} "$@" 2>&1) || _cb_rc=$?
if [ "$_cb_rc" -ne 0 ]; then
	printf '%s\n' "$_cb_said" | grep -v '^boot-point.sh: checked' >&2 || true
	[ "$_cb_rc" = 2 ] && exit "$USAGE"
	say "the boots cannot be made here (boot-point.sh --check exit $_cb_rc)"
	exit "$CANNOT"
fi
cost_map=""
if [ "$cost" = 1 ]; then
	# The counter: built, and QEMU asked whether it takes it (with a made-up map: the
	# kernels' are not built yet).
	printf 'ffffffff81000000 T _stext\n' >"$SCRATCH/probe.map"
	if ! _cb_said=$("$HERE/cost.sh" plugin --map "$SCRATCH/probe.map" --out "$SCRATCH/probe.counts" 2>&1); then
		printf '%s\n' "$_cb_said" >&2
		say "the cost counter cannot run here: --no-cost measures without it (no locked counts, no functions)"
		exit "$CANNOT"
	fi
	cost_map=1
fi
make_dir --cache "$cache"
exec 8>>"$cache/.lock"
if ! flock -n 8; then
	say "waiting for another ab.sh to finish with $cache"
	run_child flock 8
fi
cache_layout
for side in base head; do slot_recover "$side"; done

# The head first: its patches are the last input that can be refused, before anything is
# said of the run (one line, exit 2). Each step's line comes when it is done.
t=$(now)
prepare head "$head_from"
seed_head=$SEED
say "[1/$STEPS] prepare head ($(describe_side head)): $(secs "$t") s, objects: $(describe_seed "$seed_head")"
t=$(now)
prepare base "$base_from"
seed_base=$SEED
say "[2/$STEPS] prepare base ($(describe_side base)): $(secs "$t") s, objects: $(describe_seed "$seed_base")"

# The jobs: the two sides at once (the head after the base's build when it starts from its
# objects), and the heartbeat.
in_job="" base_built=0
trap ':' USR1
heartbeat &
adopt "$!"
beat=$!
if [ "$seed_head" = base ]; then
	# The base's build first, here: the head's job starts from its objects.
	build 3 base
	base_built=1
fi
base_job "$@" &
adopt "$!"
base_pid=$!
head_job "$@" &
adopt "$!"
head_pid=$!
finish head "$head_pid"
finish base "$base_pid"
kill "$beat" 2>/dev/null || true
wait_child "$beat" 2>/dev/null || true
trap '' USR1

# The table: the binary's judge reads the points and writes ab.tsv, ab.txt (also on
# stdout), compare/ and mail/; its exit is the run's.
t=$(now)
say "[8/$STEPS] the table (uring-repro ab)"
judge=0
if [ "$form" = revisions ]; then
	set -- --introduced "$(printf '%.12s' "$head_sha")" --parent "$(printf '%.12s' "$base_sha")"
else
	set --
fi
(cd "$work" && "$bin" ab --gate-insn "$gate" "$@" base=base-1 head=head base=base-2) ||
	judge=$?
say "[8/$STEPS] the table: $(secs "$t") s"
case $judge in
0 | 1 | "$CANNOT") ;;
*) fail_run "uring-repro ab could not make the table (exit $judge)" ;;
esac
publish || exit "$CANNOT"
say "$out: ab.tsv, ab.txt, the points (base-1, head, base-2), compare/, mail/, the logs"
exit "$judge"
