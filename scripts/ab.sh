#!/bin/sh
# ab.sh: what a kernel change costs on every io_uring path uring-repro measures, in one
# command; and a series of changes, step by step. Kernels (two commits of a git tree, every
# commit of a range, a tree and the same with patches applied, each patch a step, or two
# trees), each built with build-kernel.sh in a cache that keeps its objects (the next run
# rebuilds only what changed), booted on QEMU's instruction clock with the cost counter,
# every profile of `uring-repro suite` in one boot. Then the binary's own judge, `uring-repro
# ab`, makes the table from the boots' points: one row per profile and series, the change in
# guest instructions per pair, in locked instructions, and whether it moved beyond the gate
# (docs/ab.md: the method, the gate and its study; docs/series.md: a series). This script
# builds, boots and cleans up; it reads none of what the binary writes.
#
# A point is exact: the same image, booted with the same binary, run options, CPUs and QEMU,
# gives the same figures to the last decimal. So a point is kept in the cache under a hash
# of all of these and reused rather than booted again (the table says so), and a build that
# finds its copy as it was built is not made again: a series of N changes is N+1 builds at
# most and N+1 boots, and an edit to the head one build and one boot. --recheck boots every
# reused point again and the judge fails the run (125) if a figure differs.
#
# The user's trees are never written: each step is built in a slot of the cache, a copy
# whose files are hard links to the tree's (copies where the cache is on another
# filesystem), with build-kernel.sh's objdir inside. Before each build the slot is made the
# step's in place, file by file: a file that is the tree's own (the same inode) or has its
# size and time stays; one whose content differs, that the step's revision or patches
# write, that is new, or that was rewritten in place since the slot's last build (its
# record, .uring-repro-built, has every file's size, time and inode as that build began) is
# written anew, newer than every object, so make rebuilds what depends on it; one the step
# does not have goes. Whatever else goes into the cache arrives whole or not at all: a new
# slot is made beside its place and renamed into it, a point is stored beside its place and
# renamed, and a cache of another layout (an older ab.sh's) is refused, naming what to
# delete.
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
# --tree with revisions, patch(1) for --patch, cmp, sha256sum, flock and GNU find and cp.
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
# Most steps of a series, the base among them, and most boots of a run and of a step (the
# judge's limits).
MAX_STEPS=16 MAX_BOOTS=32 MAX_DRAWS=8
OBJ=.uring-repro-obj # build-kernel.sh's objdir, inside the tree it builds
IMAGE=arch/x86/boot/bzImage
# A slot's record of what its objects were built from: every file's path, type, size,
# modification time and inode, as the build began.
BUILT=.uring-repro-built
# A slot's last build, once it has succeeded: what it was built with and the image's hash.
MADE=.uring-repro-made
# What a slot's last update found of its source's files (which it need not compare again).
SOURCES=.uring-repro-sources
# The cache's layout, in a file at its top: a cache without it, or of another layout (an
# older ab.sh's), is refused rather than trusted.
LAYOUT=.uring-repro-ab
LAYOUT_TEXT="uring-repro ab cache, layout 3: a slot per step, points kept by what makes them"
# Seconds between two lines saying what runs (a build or a boot never looks hung).
HEARTBEAT=5
# Exit codes.
USAGE=2 CANNOT=125

usage() {
	cat <<EOF
usage: $PROG --tree DIR [--base REV] [--head REV] -o DIR [options] [-- RUN-OPTIONS]
       $PROG --tree DIR --series REV..REV -o DIR [options] [-- RUN-OPTIONS]
       $PROG --tree DIR --patch FILE [--patch FILE...] [--each] -o DIR [options] [-- RUN-OPTIONS]
       $PROG --base-src DIR --head-src DIR -o DIR [options] [-- RUN-OPTIONS]

Builds the kernels, boots each on QEMU's instruction clock, every profile in one boot, and
prints one row per profile: guest instructions per pair on each side, the change, locked
instructions, and a verdict. A series prints a table per step (each against the one
before), a matrix of the steps and series.tsv.

  --tree DIR       a kernel tree; with revisions (a git tree): base and head are those
                   commits (default HEAD~1 and HEAD; uncommitted changes are left out);
                   with --patch: base is the tree as it is, head the same with the
                   patches applied (patch -p1, no fuzz), in order
  --series A..B    a series: A, then every commit after it up to B (git rev-list
                   --first-parent), each a step
  --patch FILE     a patch for head (repeat it: applied in order)
  --each           every patch a step: the tree, then it with the first patch, the first
                   two, and so on
  --base-src DIR   the base's kernel tree, as it is
  --head-src DIR   the head's
  -o DIR           where the points, logs, ab.tsv and the mail drafts go (made; never
                   overwritten)
  --profiles LIST  the suite's items (default: every profile and shared variant)
  --cache DIR      the slots, their object directories and the points, kept for the
                   next run (default $DEFAULT_CACHE); not inside a tree
  --recheck        boot every point found in the cache again: a figure that differs
                   fails the run (125)
  --stop-on-failure  a step of a series that cannot be built or booted ends the run
                   (without it, the step is named and the series goes on past it)
  --re SUBJECT     the subject a series' reply answers (its cover letter's)
  --jobs N         make -jN for each build (default: the online CPUs)
  --bin PATH       the uring-repro booted, and the judge (default: this checkout's release
                   build)
  --gate INSN      instructions per pair a change must reach beyond either side's spread
                   to be called moved (default $DEFAULT_GATE); and its 95% interval round by
                   round must exclude 0
  --timeout S      seconds per boot (boot-point.sh's default otherwise)
  --cpus N         the guests' vCPUs (default 1; more than one: each image is exact,
                   but two kernels draw two schedules, docs/smp-icount.md)
  --draws N        with --cpus 2 or more: boot each step N times (at most $MAX_DRAWS), each
                   with another guest date, which seeds another schedule; the larger
                   of the two sides' draws' spreads then counts in the gate (default 1)
  --events LIST    the kernel functions whose entries the counter counts, NAME:NAME:...,
                   or none (default: scripts/cost.sh --help's list)
  --no-cost        boot without the cost counter (a QEMU that does not take it): no
                   locked counts, no functions, no events
  -h, --help       this text

RUN-OPTIONS are the suite's (default: $DEFAULT_RUN), of two rounds or more.
Paths are taken from the directory it is started in.

exit: 0 no profile moved; 1 one moved (or ran on one side and not the other); 2 a usage
      error or unusable input, before anything is built (not a kernel tree, a revision or
      patch that does not apply, an empty patch, an unknown profile, run options of one
      round, a --bin that is no uring-repro, an -o that exists, a cache of another
      layout; nothing left behind); 125 a kernel could not be built or booted (the log's
      path and its last lines; DIR kept with its logs), a point booted again differs, or
      no profile moved and one could not be judged (it skipped or failed, a step of a
      series was not measured); 130 interrupted (every build and boot stopped, nothing
      left behind).
EOF
}

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(dirname "$HERE")
# say, usage_error, opt_value, read_options, the lifetime, objdir_moved: what the scripts
# share.
# shellcheck source=common.sh
. "$HERE/common.sh"

tree="" base_rev="" head_rev="" range="" each=0 patches="" base_src="" head_src="" out=""
profiles="" work="" recheck=0 stop_on_failure=0 re=""
cache=$DEFAULT_CACHE jobs=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
bin=$REPO/target/release/uring-repro gate=$DEFAULT_GATE timeout_s="" cost=1 patch=""
cpus=1 draws=1 events="" events_set=""
nl='
'
tab=$(printf '\t')
option() {
	case $1 in
	--no-cost) cost=0 TOOK=1 ;;
	--patch)
		opt_value patch file "$@"
		# A patch that changes nothing measures nothing: it is a mistake, not a change.
		[ -s "$patch" ] || usage_error "--patch $2: an empty file (a patch changes something)"
		patches="$patches$patch$nl"
		;;
	--events)
		opt_value events text "$@"
		events_set=1
		;;
	*) usage_error "unknown argument '$1'" ;;
	esac
}
read_options '
--each             each             flag
--recheck          recheck          flag
--stop-on-failure  stop_on_failure  flag
--tree             tree             dir
--base             base_rev         text
--head             head_rev         text
--series           range            text
--base-src         base_src         dir
--head-src         head_src         dir
-o                 out              text
--profiles         profiles         text
--re               re               text
--cache            cache            new_dir
--jobs             jobs             positive
--bin              bin              exe
--gate             gate             text
--timeout          timeout_s        positive
--cpus             cpus             positive
--draws            draws            positive
' "$@"
shift "$OPTIONS_READ"
# shellcheck disable=SC2086 # DEFAULT_RUN's words
[ $# -gt 0 ] || set -- $DEFAULT_RUN
[ -n "$out" ] || usage_error "-o DIR is required"
[ "$out" = / ] || out=${out%/}
opt_value out new_file -o "$out"

# The form, from the options given.
forms="one of: --tree DIR [--base REV] [--head REV], --tree DIR --series A..B, --tree DIR --patch FILE... [--each], --base-src DIR --head-src DIR"
if [ -n "$tree" ] && [ -z "$base_src$head_src" ]; then
	if [ -n "$patches" ]; then
		[ -z "$base_rev$head_rev$range" ] || usage_error "--patch takes the tree as it is: no --base, --head or --series"
		form=patches
		[ "$each" = 0 ] || form=each
	elif [ -n "$range" ]; then
		[ -z "$base_rev$head_rev" ] || usage_error "--series names its own ends: no --base or --head"
		form=series
	else
		form=revisions base_rev=${base_rev:-HEAD~1} head_rev=${head_rev:-HEAD}
	fi
elif [ -n "$base_src" ] && [ -n "$head_src" ] && [ -z "$tree$patches$base_rev$head_rev$range" ]; then
	form=trees
else
	usage_error "$forms"
fi
[ "$each" = 0 ] || [ "$form" = each ] || usage_error "--each takes --tree DIR --patch FILE..."
case $form in series | each) ;; *)
	[ -z "$re" ] || usage_error "--re: the subject of a series' reply (--series, --each)"
	[ "$stop_on_failure" = 0 ] || usage_error "--stop-on-failure: for a series (--series, --each); two kernels always stop"
	;;
esac
if [ "$cost" = 0 ]; then
	[ -z "$events_set" ] || usage_error "--events: the events are the counter's, and --no-cost boots without it"
elif [ -z "$events_set" ]; then
	events=$COST_EVENTS
fi
if [ "$draws" -gt 1 ]; then
	[ "$cpus" -gt 1 ] || usage_error "--draws $draws: the schedules two vCPUs or more draw (--cpus 2); one vCPU draws one"
	[ "$draws" -le "$MAX_DRAWS" ] || usage_error "--draws: at most $MAX_DRAWS boots of a step, not $draws"
	[ "$recheck" = 0 ] || usage_error "--draws with --recheck: a step's draws differ by design, so its boots cannot be held to one point (recheck without --draws)"
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
run_options="$*"

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

# git_tree: --tree is the top of a git tree, else refused.
git_tree() {
	command -v git >/dev/null 2>&1 || usage_error "revisions: git not found"
	_gt_top=$(git -C "$tree" rev-parse --show-toplevel 2>/dev/null) ||
		refuse "--tree: $tree is not a git tree (revisions need one; --patch or --base-src/--head-src take a tree as it is)"
	[ "$(cd "$_gt_top" && pwd -P)" = "$(cd "$tree" && pwd -P)" ] ||
		refuse "--tree: $tree is inside the git tree $_gt_top: name its top"
}

case $form in
revisions | series)
	kernel_tree "$tree"
	git_tree
	;;
patches | each)
	kernel_tree "$tree"
	clean_tree "$tree"
	command -v patch >/dev/null 2>&1 || usage_error "--patch: patch(1) not found (Debian: patch)"
	;;
trees)
	kernel_tree "$base_src"
	kernel_tree "$head_src"
	clean_tree "$base_src"
	clean_tree "$head_src"
	;;
esac
for t in $tree $base_src $head_src; do
	case $(abs_real "$cache")/ in "$(abs_real "$t")"/*)
		usage_error "--cache: $cache is inside $t (its copies would copy themselves)"
		;;
	esac
done
for tool in cmp flock find sha256sum; do
	command -v "$tool" >/dev/null 2>&1 || usage_error "$tool not found (Debian: diffutils, coreutils, util-linux, findutils)"
done

# ---------------------------------------------------------------------------------------
# From here on, whatever ends the script (Ctrl-C and SIGKILL too) stops every build and
# boot and removes what was made for the run: SCRATCH, and the directory beside DIR.
MAIN=$$
lifetime_begin ab || exit $USAGE
mkdir "$SCRATCH/running" "$SCRATCH/ready" "$SCRATCH/done" "$SCRATCH/failed" "$SCRATCH/ov"

# ---------------------------------------------------------------------------------------
# The steps: $SCRATCH/steps, a line each, K from 0 (the base):
#   LABEL ID SUBJECT SOURCE REV
# tab-separated: LABEL names the step to the judge and its boot's directory; ID is a
# commit or a patch's file name; SOURCE the tree its files come from; REV the commit it is
# (revisions), else -. What the step changes in SOURCE (a revision, patches) is its overlay,
# made now, before anything is built: $SCRATCH/ov/K holds the files it writes, and
# $SCRATCH/ov/K.paths every path it decides (one it does not hold is removed).

# subject_of SHA: the commit's subject, tabs as spaces.
subject_of() { git -C "$tree" log -1 --format=%s "$1" | tr '\t' ' '; }

# add_step LABEL ID SUBJECT SOURCE REV.
add_step() { printf '%s\t%s\t%s\t%s\t%s\n' "$@" >>"$SCRATCH/steps"; }

# step_get K: step K's fields as st_label, st_id, st_subject, st_src, st_rev.
step_get() {
	IFS=$tab read -r st_label st_id st_subject st_src st_rev <<EOF
$(sed -n "$(($1 + 1))p" "$SCRATCH/steps")
EOF
}

: >"$SCRATCH/steps"
case $form in
revisions)
	base_sha=$(commit_of "$base_rev" --base)
	head_sha=$(commit_of "$head_rev" --head)
	add_step base "$(printf '%.12s' "$base_sha")" "$(subject_of "$base_sha")" "$tree" "$base_sha"
	add_step head "$(printf '%.12s' "$head_sha")" "$(subject_of "$head_sha")" "$tree" "$head_sha"
	;;
series)
	case $range in
	?*..?*) ;;
	*) usage_error "--series: a range A..B, not '$range'" ;;
	esac
	first=$(commit_of "${range%%..*}" --series)
	last=$(commit_of "${range#*..}" --series)
	git -C "$tree" merge-base --is-ancestor "$first" "$last" 2>/dev/null ||
		refuse "--series $range: ${range%%..*} is not an ancestor of ${range#*..}"
	git -C "$tree" rev-list --reverse --first-parent "$first..$last" >"$SCRATCH/revs"
	n=$(wc -l <"$SCRATCH/revs")
	[ "$n" -gt 0 ] || refuse "--series $range: no commit after ${range%%..*}"
	[ "$n" -lt "$MAX_STEPS" ] || refuse "--series $range: $n commits; at most $((MAX_STEPS - 1)) a run"
	add_step base "$(printf '%.12s' "$first")" "$(subject_of "$first")" "$tree" "$first"
	while read -r sha; do
		add_step "$(printf '%.12s' "$sha")" "$(printf '%.12s' "$sha")" "$(subject_of "$sha")" "$tree" "$sha"
	done <"$SCRATCH/revs"
	;;
patches | each)
	add_step base - "$tree as it is" "$tree" -
	printf '%s' "$patches" >"$SCRATCH/patches"
	n=$(wc -l <"$SCRATCH/patches")
	if [ "$form" = each ]; then
		[ "$n" -lt "$MAX_STEPS" ] || usage_error "--each: $n patches; at most $((MAX_STEPS - 1)) a run"
		k=0
		while IFS= read -r p; do
			k=$((k + 1))
			_subj=$(sed -n 's/^Subject: *\(\[[^]]*\] *\)*//p' "$p" | head -n 1 | tr '\t' ' ')
			add_step "p$k" "${p##*/}" "${_subj:-${p##*/}}" "$tree" -
		done <"$SCRATCH/patches"
	else
		add_step head "$(sed 's|.*/||' "$SCRATCH/patches" | paste -sd ' ')" "$tree with the patches" "$tree" -
	fi
	;;
trees)
	add_step base - "$base_src as it is" "$base_src" -
	add_step head - "$head_src as it is" "$head_src" -
	;;
esac
nsteps=$(wc -l <"$SCRATCH/steps")
last_step=$((nsteps - 1))
[ $((nsteps * draws)) -le "$MAX_BOOTS" ] ||
	usage_error "--draws $draws: $nsteps steps of $draws boots each are $((nsteps * draws)) boots; at most $MAX_BOOTS a run"

# touched PATCH: the paths PATCH names (its ---/+++ lines and git's renames, -p1), one a
# line.
touched() {
	sed -n -e 's/^\(---\|+++\) \([^\t]*\).*/\2/p' -e 's/^rename \(from\|to\) //p' -e 's/^copy \(from\|to\) //p' "$1" |
		sed -e '/^\/dev\/null$/d' -e 's|^"\(.*\)"$|\1|' |
		awk '/^(rename|copy) / { print; next } { sub(/^[^\/]*\//, ""); print }' | LC_ALL=C sort -u
}

# overlay_patches: the overlays of a patch form: its head's (every patch), or each step's
# (--each: the patches up to it). Each patch is checked first (patch --dry-run) on the
# files it names, with the patches before it applied: one that does not apply is refused
# naming it, the patches before it, and its first hunk that failed. No fuzz: a hunk
# applies where its context is, or not at all.
overlay_patches() {
	_op_ov=$SCRATCH/ov/work _op_before="" _op_k=0
	mkdir "$_op_ov"
	: >"$SCRATCH/ov/work.paths"
	while IFS= read -r _op; do
		_op_k=$((_op_k + 1))
		touched "$_op" >"$SCRATCH/patch.paths"
		while IFS= read -r _op_f; do
			grep -qxF -- "$_op_f" "$SCRATCH/ov/work.paths" && continue
			printf '%s\n' "$_op_f" >>"$SCRATCH/ov/work.paths"
			if [ -f "$tree/$_op_f" ] || [ -L "$tree/$_op_f" ]; then
				mkdir -p "$_op_ov/$(dirname "$_op_f")"
				cp -P --preserve=mode -- "$tree/$_op_f" "$_op_ov/$_op_f"
			fi
		done <"$SCRATCH/patch.paths"
		if ! _op_said=$(patch -p1 --forward --batch --fuzz=0 -d "$_op_ov" -i "$_op" --dry-run </dev/null 2>&1); then
			_op_where=$(printf '%s\n' "$_op_said" | awk '/^checking file / { f = substr($0, 15) }
				/^Hunk #[0-9]+ FAILED at / { print f ", hunk #" substr($2, 2) " (at line " $5 + 0 ")"; exit }')
			[ -n "$_op_where" ] || _op_where=$(printf '%s\n' "$_op_said" | grep -v '^checking file ' | head -n 1)
			refuse "--patch $_op does not apply to $tree${_op_before:+ with $_op_before applied}: $_op_where"
		fi
		patch -p1 --forward --batch --fuzz=0 -d "$_op_ov" -i "$_op" --no-backup-if-mismatch -s \
			</dev/null >"$SCRATCH/patch.out" 2>&1 ||
			refuse "--patch $_op: patch failed after its dry run: $(head -n 1 "$SCRATCH/patch.out")"
		_op_before="$_op_before${_op_before:+, }${_op##*/}"
		if [ "$form" = each ] || [ "$_op_k" -eq "$n" ]; then
			_op_step=$_op_k
			[ "$form" = each ] || _op_step=1
			cp -a "$_op_ov" "$SCRATCH/ov/$_op_step"
			LC_ALL=C sort -u "$SCRATCH/ov/work.paths" >"$SCRATCH/ov/$_op_step.paths"
		fi
	done <"$SCRATCH/patches"
}

# overlay_revision K: step K's overlay, its commit against the tree's work tree: every path
# whose content differs (git diff, the user's settings left out: no external diff or
# textconv, no renames, every path from the top; a file's ctime not taken as a change, as
# the copies' hard links change it), the commit's version of it (git archive) or none; and
# every file git ignores in the work tree (an in-tree build's), removed.
overlay_revision() {
	_or_ov=$SCRATCH/ov/$1
	mkdir "$_or_ov"
	git -C "$tree" -c core.trustctime=false diff --no-ext-diff --no-textconv --no-renames \
		--no-relative --name-only -z "$st_rev" -- >"$SCRATCH/or.diff" ||
		cannot_start "git diff $st_rev failed in $tree"
	if [ -s "$SCRATCH/or.diff" ]; then
		xargs -0 git -C "$tree" --literal-pathspecs ls-tree -r -z --name-only "$st_rev" -- \
			<"$SCRATCH/or.diff" >"$SCRATCH/or.in" || cannot_start "git ls-tree $st_rev failed in $tree"
		if [ -s "$SCRATCH/or.in" ]; then
			xargs -0 git -C "$tree" --literal-pathspecs archive --format=tar "$st_rev" -- \
				<"$SCRATCH/or.in" | tar -x -i -C "$_or_ov" ||
				cannot_start "git archive $st_rev failed in $tree"
		fi
	fi
	{
		tr '\0' '\n' <"$SCRATCH/or.diff"
		cat "$SCRATCH/ignored"
	} | LC_ALL=C sort -u >"$SCRATCH/ov/$1.paths"
}

# cannot_start WHY: before the run's directory exists: one line, exit 125.
cannot_start() {
	say "$*"
	exit "$CANNOT"
}

case $form in
revisions | series)
	git -C "$tree" ls-files -z -o -i --exclude-standard | tr '\0' '\n' >"$SCRATCH/ignored"
	k=0
	while [ "$k" -le "$last_step" ]; do
		step_get "$k"
		overlay_revision "$k"
		k=$((k + 1))
	done
	;;
patches | each) overlay_patches ;;
esac

# ---------------------------------------------------------------------------------------
# What the boots need beyond the images, checked before anything is built: QEMU and its
# instruction clock, the binary, the suite's options and LIST (the binary's own check),
# and the counter (built with gcc, and QEMU asked whether it takes it).
_cb_rc=0
_cb_said=$("$HERE/boot-point.sh" --check --kernel "$SCRATCH/image" -o "$SCRATCH/check" \
	--accel icount --cpus "$cpus" --bin "$bin" -- suite ${profiles:+--profiles "$profiles"} "$@" 2>&1) || _cb_rc=$?
if [ "$_cb_rc" -ne 0 ]; then
	printf '%s\n' "$_cb_said" | grep -v '^boot-point.sh: checked' >&2 || true
	[ "$_cb_rc" = 2 ] && exit "$USAGE"
	cannot_start "the boots cannot be made here (boot-point.sh --check exit $_cb_rc)"
fi
if [ "$cost" = 1 ]; then
	# The counter: built, and QEMU asked whether it takes it (with a made-up map: the
	# kernels' are not built yet).
	printf 'ffffffff81000000 T _stext\n' >"$SCRATCH/probe.map"
	_cb_rc=0
	_cb_said=$("$HERE/cost.sh" plugin --map "$SCRATCH/probe.map" --out "$SCRATCH/probe.counts" \
		--cpus "$cpus" --events "$events" 2>&1) || _cb_rc=$?
	if [ "$_cb_rc" -ne 0 ]; then
		printf '%s\n' "$_cb_said" | grep -v '^cost.sh: note: ' >&2
		[ "$_cb_rc" = 2 ] && exit "$USAGE"
		cannot_start "the cost counter cannot run here: --no-cost measures without it (no locked counts, no functions)"
	fi
fi

# What makes a build, besides its tree: build-kernel.sh, its fragment, the compiler and
# make. What makes a point, besides its image: the binary, how it is booted (boot-point.sh
# and the counter's sources), QEMU, the CPUs, the events counted and the run options. Their
# hashes, now.
hash_of() { sha256sum "$@" | cut -d ' ' -f 1 | paste -sd ' '; }
qemu_version=$(qemu-system-x86_64 --version 2>/dev/null | head -n 1) || qemu_version=unknown
{
	echo "build-kernel.sh $(hash_of "$HERE/build-kernel.sh") $(hash_of "$REPO/kernel/uring-repro.config")"
	echo "gcc $(gcc --version 2>/dev/null | head -n 1)"
	echo "make $(make --version 2>/dev/null | head -n 1)"
} >"$SCRATCH/build.inputs"
build_inputs=$(hash_of "$SCRATCH/build.inputs")
{
	echo "bin $(hash_of "$bin")"
	echo "boot-point.sh $(hash_of "$HERE/boot-point.sh")"
	if [ "$cost" = 1 ]; then
		echo "counter $(find "$REPO/plugin" -type f | LC_ALL=C sort | xargs cat | sha256sum | cut -d ' ' -f 1)"
	else
		echo "counter none"
	fi
	echo "qemu $qemu_version"
	echo "accel icount, cpus $cpus"
	if [ "$cost" = 1 ]; then echo "events $events"; fi
	echo "run suite${profiles:+ --profiles $profiles} $run_options"
} >"$SCRATCH/point.inputs"

make_dir --cache "$cache"
cache=$(cd "$cache" && pwd -P)
exec 8>>"$cache/.lock"
if ! flock -n 8; then
	say "waiting for another ab.sh to finish with $cache"
	run_child flock 8
fi

# ---------------------------------------------------------------------------------------
# The cache: CACHE/slot-K, step K's slot, holding tree/ (the copy, with build-kernel.sh's
# objdir inside: kbuild's paths then stay relative, and an objdir copied into another copy
# of the same tree builds there incrementally), its record tree/$BUILT and, once a build
# has succeeded, tree/$MADE; and CACHE/points/KEY, a boot's points kept under the hash of
# what made them.

# cache_layout: the cache is of this layout (a new one gets the mark), else refused.
cache_layout() {
	if [ -f "$cache/$LAYOUT" ] && [ "$(cat "$cache/$LAYOUT")" = "$LAYOUT_TEXT" ]; then
		return 0
	fi
	for _cl in "$cache"/* "$cache"/.[!.]* "$cache"/..?*; do
		[ -e "$_cl" ] || [ -L "$_cl" ] || continue
		[ "${_cl##*/}" = .lock ] && continue
		usage_error "--cache $cache holds copies an older ab.sh made (another layout): delete it (rm -rf $cache) or name another --cache"
	done
	printf '%s\n' "$LAYOUT_TEXT" >"$cache/$LAYOUT.new" && mv -f "$cache/$LAYOUT.new" "$cache/$LAYOUT"
}

# slot_recover K: what a run cut short left in slot K removed: a new slot that never took
# its place, a tree without its record.
slot_recover() {
	_sr=$cache/slot-$1
	rm -rf "$_sr/new" "$_sr/old"
	[ ! -d "$_sr/tree" ] || [ -f "$_sr/tree/$BUILT" ] || rm -rf "$_sr/tree"
}

# listing DIR [%C@]: every file and symbolic link of DIR but .git and what ab.sh and
# build-kernel.sh keep there (.uring-repro-*: the objdir, the record, the build's mark):
# path, type, size, modification time, inode and a link's target (and with %C@ the
# ctime), a line each, sorted.
listing() {
	(cd "$1" && find . \( -path ./.git -o -path './.uring-repro-*' \) -prune \
		-o \( -type f -o -type l \) -printf "%P\\t%y\\t%s\\t%T@\\t%i\\t%l${2:+\\t$2}\\n") | LC_ALL=C sort
}

# record DIR: DIR's record of what its objects are built from (written beside, then
# renamed: whole or absent).
record() {
	if ! { listing "$1" >"$1/$BUILT.new" && mv -f "$1/$BUILT.new" "$1/$BUILT"; }; then
		cannot "could not record what $1 is built from"
	fi
}

# link_copy FROM TO: FROM's files hard-linked into TO (copied where the cache is on another
# filesystem), but .git and .uring-repro-* (the objdir, the record, the mark).
link_copy() {
	_lc_cp="cp -al"
	ln "$1/Makefile" "$2/.link-test" 2>/dev/null || _lc_cp="cp -a"
	rm -f "$2/.link-test"
	for _lc_e in "$1"/* "$1"/.[!.]* "$1"/..?*; do
		[ -e "$_lc_e" ] || [ -L "$_lc_e" ] || continue
		case ${_lc_e##*/} in .git | .uring-repro-*) continue ;; esac
		$_lc_cp "$_lc_e" "$2/" || cannot "could not copy $_lc_e into $2"
	done
}

# copy_objdir FROM TO TREE: the object directory FROM copied to TO, whole or not at all
# (beside it, then renamed), made to name TREE, the tree it is built in (common.sh: its
# host tools not rebuilt).
copy_objdir() {
	rm -rf "$2.partial"
	cp -a "$1" "$2.partial" || cannot "could not copy $1"
	objdir_moved "$1" "$2.partial" "$3" || cannot "could not rename the tools of $2"
	mv "$2.partial" "$2"
}

# seed K: step K's slot made, where it has none: from the step before's (its files, its
# record and its objects), else the source tree's files and its own objdir, else its
# files alone (a build from nothing). Made in new/, renamed to tree/ once whole. SEED says
# which.
seed() {
	_sd=$cache/slot-$1
	rm -rf "$_sd/new"
	mkdir -p "$_sd/new/tree"
	_sd_prev=$cache/slot-$(($1 - 1))/tree
	if [ "$1" -gt 0 ] && [ -d "$_sd_prev/$OBJ" ] && [ -f "$_sd_prev/$BUILT" ]; then
		link_copy "$_sd_prev" "$_sd/new/tree"
		cp "$_sd_prev/$BUILT" "$_sd/new/tree/$BUILT"
		[ ! -f "$_sd_prev/$MADE" ] || cp "$_sd_prev/$MADE" "$_sd/new/tree/$MADE"
		copy_objdir "$_sd_prev/$OBJ" "$_sd/new/tree/$OBJ" "$_sd/tree"
		SEED=previous
	elif [ -d "$st_src/$OBJ" ]; then
		link_copy "$st_src" "$_sd/new/tree"
		record "$_sd/new/tree"
		copy_objdir "$st_src/$OBJ" "$_sd/new/tree/$OBJ" "$_sd/tree"
		SEED=source
	else
		link_copy "$st_src" "$_sd/new/tree"
		record "$_sd/new/tree"
		SEED=none
	fi
	rm -rf "$_sd/tree"
	mv "$_sd/new/tree" "$_sd/tree"
	rmdir "$_sd/new"
}
describe_seed() {
	case $1 in
	slot) echo "the last build's, kept in the cache" ;;
	previous) echo "a copy of the step before's" ;;
	source) echo "a copy of the tree's own $OBJ" ;;
	none) echo "none yet: a build from nothing" ;;
	esac
}

# update K: step K's slot made the step's, in place. The actions, from the slot's files,
# its record, the source's files, what the slot's last update found of them and the
# step's overlay: a file that is the source's (the same inode), or that the last update
# found or made the same as the source's file, which has not changed since (the same
# inode, size, time and ctime, which no write leaves as it was), stays; another is
# compared by content. One that is new, that the overlay writes with another content, or
# that was rewritten since the slot's last build (it no longer has the size, time and
# inode recorded) is written anew; a link takes its target; what the step lacks goes.
# CHANGED: how many were written, linked or removed. Once whole, what it found of the
# source is kept ($SOURCES), for the next update.
update() {
	_up_t=$cache/slot-$1/tree _up_ov=$SCRATCH/ov/$1
	_up_seen=$SCRATCH/up.seen
	if [ -f "$_up_t/$SOURCES" ] && [ "$(head -n 1 "$_up_t/$SOURCES")" = "source $st_src" ]; then
		tail -n +2 "$_up_t/$SOURCES" >"$_up_seen"
	else
		: >"$_up_seen"
	fi
	rm -f "$_up_t/$SOURCES"
	listing "$_up_t" >"$SCRATCH/up.now"
	listing "$st_src" %C@ >"$SCRATCH/up.src"
	rm -f "$SCRATCH/up.found"
	if [ -d "$_up_ov" ]; then
		listing "$_up_ov" >"$SCRATCH/up.ov"
		cp "$SCRATCH/ov/$1.paths" "$SCRATCH/up.decides"
	else
		: >"$SCRATCH/up.ov"
		: >"$SCRATCH/up.decides"
	fi
	LC_ALL=C awk -F '\t' -v OFS='\t' -v src="$st_src" -v ov="$_up_ov" -v found="$SCRATCH/up.found" '
		FILENAME == ARGV[1] { rec[$1] = $0; next }
		FILENAME == ARGV[2] { now[$1] = $0; t[$1] = $2; ino[$1] = $5; to[$1] = $6; next }
		FILENAME == ARGV[3] { decides[$1] = 1; next }
		FILENAME == ARGV[4] { has[$1] = 1; ot[$1] = $2; oto[$1] = $6; next }
		FILENAME == ARGV[5] { seen[$1] = $0; next }
		# The source: every path the overlay does not decide.
		{
			p = $1
			if (p in decides) next
			want[p] = 1
			print > found
			if ($2 == "l") { if (!(p in now) || t[p] != "l" || to[p] != $6) print "L", p, $6; next }
			if (!(p in now) || t[p] != "f" || !(p in rec) || rec[p] != now[p]) { print "W", p, src "/" p; next }
			if (ino[p] == $5 || seen[p] == $0) next
			print "C", p, src "/" p
		}
		END {
			for (p in decides) {
				if (!(p in has)) continue
				want[p] = 1
				if (ot[p] == "l") { if (!(p in now) || t[p] != "l" || to[p] != oto[p]) print "L", p, oto[p]; continue }
				if (!(p in now) || t[p] != "f" || !(p in rec) || rec[p] != now[p]) print "W", p, ov "/" p
				else print "C", p, ov "/" p
			}
			for (p in now) if (!(p in want)) print "D", p
		}' "$_up_t/$BUILT" "$SCRATCH/up.now" "$SCRATCH/up.decides" "$SCRATCH/up.ov" "$_up_seen" \
		"$SCRATCH/up.src" >"$SCRATCH/up.actions" || cannot "could not compare $_up_t with $st_src"
	compare_contents "$_up_t"
	CHANGED=0
	while IFS=$tab read -r _up_a _up_p _up_s; do
		_up_f=$_up_t/$_up_p
		if [ -d "$_up_f" ] && [ ! -L "$_up_f" ]; then rm -rf -- "$_up_f"; fi
		case $_up_a in
		W)
			mkdir -p -- "$(dirname -- "$_up_f")" &&
				cp --preserve=mode -- "$_up_s" "$_up_f.ab-new" && mv -f -- "$_up_f.ab-new" "$_up_f" ||
				cannot "could not write $_up_f anew"
			;;
		L)
			mkdir -p -- "$(dirname -- "$_up_f")" && rm -f -- "$_up_f" && ln -s -- "$_up_s" "$_up_f" ||
				cannot "could not link $_up_f"
			;;
		D) rm -f -- "$_up_f" || cannot "could not remove $_up_f" ;;
		esac
		CHANGED=$((CHANGED + 1))
	done <"$SCRATCH/up.actions"
	: >>"$SCRATCH/up.found"
	{ printf 'source %s\n' "$st_src" && cat "$SCRATCH/up.found"; } >"$_up_t/$SOURCES.new" &&
		mv -f "$_up_t/$SOURCES.new" "$_up_t/$SOURCES" || cannot "could not keep what $_up_t's update found"
}

# compare_contents TREE: the actions' C (compare) lines made W (write anew) where the
# slot's file and its source differ in content, and dropped where they do not: every file
# hashed by a few sha256sum processes, not one cmp a file (a tree copied without its times
# has thousands). Should the hashes not come back one a file (a file gone meanwhile), every
# C is a W: written anew, rebuilt.
compare_contents() {
	awk -F '\t' '$1 == "C"' "$SCRATCH/up.actions" >"$SCRATCH/up.compare"
	awk -F '\t' '$1 != "C"' "$SCRATCH/up.actions" >"$SCRATCH/up.rest"
	if [ -s "$SCRATCH/up.compare" ]; then
		cut -f 2 "$SCRATCH/up.compare" | (cd "$1" && xargs -r -d '\n' sha256sum --) 2>/dev/null |
			cut -d ' ' -f 1 >"$SCRATCH/up.slot-hashes" || true
		cut -f 3 "$SCRATCH/up.compare" | xargs -r -d '\n' sha256sum -- 2>/dev/null |
			cut -d ' ' -f 1 >"$SCRATCH/up.source-hashes" || true
		_cc_n=$(wc -l <"$SCRATCH/up.compare")
		if [ "$(wc -l <"$SCRATCH/up.slot-hashes")" = "$_cc_n" ] && [ "$(wc -l <"$SCRATCH/up.source-hashes")" = "$_cc_n" ]; then
			paste "$SCRATCH/up.slot-hashes" "$SCRATCH/up.source-hashes" "$SCRATCH/up.compare" |
				awk -F '\t' -v OFS='\t' '$1 != $2 { print "W", $4, $5 }' >>"$SCRATCH/up.rest"
		else
			awk -F '\t' -v OFS='\t' '{ print "W", $2, $3 }' "$SCRATCH/up.compare" >>"$SCRATCH/up.rest"
		fi
	fi
	mv -f "$SCRATCH/up.rest" "$SCRATCH/up.actions"
}

# made K: the slot's image is the one its last build made from its files as they are now,
# with the same build-kernel.sh, fragment and tools: the build is not made again. MADE_AT:
# when it was built.
made() {
	_md_t=$cache/slot-$1/tree
	[ "$CHANGED" = 0 ] && [ -f "$_md_t/$MADE" ] && [ -f "$_md_t/$OBJ/$IMAGE" ] || return 1
	IFS=' ' read -r _md_inputs _md_image MADE_AT <"$_md_t/$MADE" || return 1
	[ "$_md_inputs" = "$build_inputs" ] && [ "$_md_image" = "$(hash_of "$_md_t/$OBJ/$IMAGE")" ] || return 1
	listing "$_md_t" | cmp -s - "$_md_t/$BUILT"
}

# point_key K: the hash of what makes step K's point: its image and System.map, and what
# every point of the run shares ($SCRATCH/point.inputs); its text in $SCRATCH/key-K.
point_key() {
	_pk_o=$cache/slot-$1/tree/$OBJ
	{
		echo "uring-repro ab point"
		echo "image $(hash_of "$_pk_o/$IMAGE")"
		if [ "$cost" = 1 ]; then echo "map $(hash_of "$_pk_o/System.map")"; fi
		cat "$SCRATCH/point.inputs"
	} >"$SCRATCH/key-$1"
	hash_of "$SCRATCH/key-$1"
}

# ---------------------------------------------------------------------------------------
# The run: a builder and a booter, jobs at once. The builder makes each step's slot, in
# order (a new slot starts from the step before's objects), builds it unless made already,
# and hands the booter the step's point key ($SCRATCH/ready/K). The booter takes the steps
# in order: a point kept under its key is reused (and with --recheck booted again beside
# it), another is booted and kept. A step that cannot be built or booted ends the run, or
# in a series is named ($SCRATCH/failed/K) and the series goes on past it. The instruction
# clock's counts depend neither on the host's load nor on when a boot starts (its identity
# is its own, from the host).

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# begin NAME [LOG]: the job's line as NAME (`[TAG] build`) begins; what it runs (for the
# heartbeat) until ended.
begin() {
	say "$1"
	printf '%s\t%s\t%s\n' "$1" "$(now)" "${2:-}" >"$SCRATCH/running/$in_job"
}

# ended [NOTE]: the job's last line of what it ran, its time.
ended() {
	IFS=$tab read -r _en_name _en_t _en_log <"$SCRATCH/running/$in_job"
	rm -f "$SCRATCH/running/$in_job"
	say "$_en_name: $(secs "$_en_t") s${1:+, $1}"
}

# tag K: how the lines name step K: its label, and in a series its place.
tag() {
	step_get "$1"
	case $form in
	series | each) printf '%s/%s %s' "$1" "$last_step" "$st_label" ;;
	*) printf '%s' "$st_label" ;;
	esac
}

# step_failed K WHAT HOW LOG: step K could not be built or booted (WHAT: failed, timed
# out; HOW: its status): its line and the last lines of its LOG. Two kernels, or
# --stop-on-failure: the run ends (fail_run). A series goes on: the step is named
# ($SCRATCH/failed/K) and left out.
step_failed() {
	IFS=$tab read -r _sf_name _sf_t _sf_log <"$SCRATCH/running/$in_job"
	rm -f "$SCRATCH/running/$in_job"
	say "$_sf_name $2 $3 after $(secs "$_sf_t") s; the last lines of $out/$4:"
	grep -v '^$' "$work/$4" | tail -n 12 | sed 's/^/  | /' >&2
	if [ "$stop_on_failure" = 1 ] || { [ "$form" != series ] && [ "$form" != each ]; }; then
		fail_run "$_sf_name $2: $out/$4"
	fi
	printf '%s %s (%s)\n' "$(printf '%s' "$_sf_name" | sed 's/^\[[^]]*\] //')" "$2" "$4" >"$SCRATCH/failed/$1"
	say "[$(tag "$1")] left out of the series (as git bisect skip)"
}

# build_step K: step K's slot made and built (its copy recorded as the build begins),
# unless made already; then its point key handed to the booter.
build_step() {
	_bs_tag=$(tag "$1")
	step_get "$1"
	_bs_t=$(now)
	_bs_slot=$cache/slot-$1
	SEED=slot
	[ -d "$_bs_slot/tree" ] || seed "$1"
	update "$1"
	if made "$1"; then
		say "[$_bs_tag] prepared: $(secs "$_bs_t") s; built already ($MADE_AT), not built again"
	else
		say "[$_bs_tag] prepared: $(secs "$_bs_t") s, $CHANGED file(s) written anew, objects: $(describe_seed "$SEED")"
		begin "[$_bs_tag] build" "$work/build-$st_label.log"
		rm -f "$_bs_slot/tree/$MADE"
		record "$_bs_slot/tree"
		_bs_rc=0
		run_child "$HERE/build-kernel.sh" --src "$_bs_slot/tree" --jobs "$jobs" \
			>"$work/build-$st_label.log" 2>&1 || _bs_rc=$?
		if [ "$_bs_rc" -ne 0 ]; then
			step_failed "$1" failed "(exit $_bs_rc)" "build-$st_label.log"
			: >"$SCRATCH/ready/$1"
			return 0
		fi
		printf '%s %s %s\n' "$build_inputs" "$(hash_of "$_bs_slot/tree/$OBJ/$IMAGE")" \
			"$(date -u '+%Y-%m-%dT%H:%M:%SZ')" >"$_bs_slot/tree/$MADE.new"
		mv -f "$_bs_slot/tree/$MADE.new" "$_bs_slot/tree/$MADE"
		ended
	fi
	point_key "$1" >"$SCRATCH/ready/$1.new"
	mv "$SCRATCH/ready/$1.new" "$SCRATCH/ready/$1"
}

# boot K DIR NOTE RUN-OPTIONS: a boot of step K's kernel into the points of $work/DIR (NOTE
# says which boot it is); status 1 when it fails, BOOT_WHAT (failed, timed out), BOOT_HOW
# (its status) and BOOT_LOG (its log, in the run's directory) saying how.
boot() {
	_bt_tag=$(tag "$1") _bt_obj=$cache/slot-$1/tree/$OBJ _bt_dir=$2 _bt_rc=0
	begin "[$_bt_tag] boot${3:+ $3}"
	shift 3
	run_child "$HERE/boot-point.sh" --kernel "$_bt_obj/$IMAGE" -o "$work/$_bt_dir" --accel icount \
		--cpus "$cpus" ${cost_map:+--cost "$_bt_obj/System.map" --events "$events"} --bin "$bin" \
		${timeout_s:+--timeout "$timeout_s"} ${boot_date:+--rtc-date "$boot_date"} \
		-- suite ${profiles:+--profiles "$profiles"} "$@" >"$work/boot-$_bt_dir.log" 2>&1 || _bt_rc=$?
	BOOT_LOG=boot-$_bt_dir.log
	case $_bt_rc in
	0 | 1 | 4)
		ended "$(tail -n 1 "$work/$BOOT_LOG" | sed 's/^boot-point.sh: [^:]*: //')"
		return 0
		;;
	124)
		BOOT_WHAT="timed out" BOOT_HOW="(boot-point.sh's default timeout)"
		[ -z "$timeout_s" ] || BOOT_HOW="(--timeout $timeout_s)"
		;;
	*) BOOT_WHAT=failed BOOT_HOW="(boot-point.sh exit $_bt_rc)" ;;
	esac
	return 1
}

# keep K KEY DIR: step K's boot into $work/DIR kept in the cache under KEY: its points, its
# log, the text of its key and when it was booted; beside its place, then renamed (whole or
# absent).
keep() {
	_kp=$cache/points/$2
	[ ! -d "$_kp" ] || return 0
	mkdir -p "$cache/points"
	rm -rf "$_kp.new"
	mkdir "$_kp.new" &&
		cp -a "$work/$3" "$_kp.new/suite" &&
		cp "$work/boot-$3.log" "$_kp.new/boot.log" &&
		cp "$SCRATCH/key-$1-$draw" "$_kp.new/key.txt" &&
		date -u '+%Y-%m-%d %H:%M:%S UTC' >"$_kp.new/booted" &&
		mv -T "$_kp.new" "$_kp" || {
		rm -rf "$_kp.new"
		say "[$(tag "$1")] its points could not be kept in $cache/points (the next run boots it again)"
	}
}

# reuse K KEY DIR: step K's points, as kept under KEY, into $work/DIR, with the date of
# their boot (the judge says it: DIR/reused).
reuse() {
	_ru=$cache/points/$2
	cp -a "$_ru/suite" "$work/$3" && cp "$_ru/boot.log" "$work/boot-$3.log" &&
		cp "$_ru/booted" "$work/$3/reused" || cannot "could not copy the points kept in $_ru"
	say "[$(tag "$1")] ${draw_said}its points reused: booted $(cat "$_ru/booted") (the same image, binary, run options, CPUs and QEMU)"
}

# The draws (--draws N, two vCPUs or more): each step booted N times, boot D with the
# guest's date the Dth of June 2024 (boot-point.sh --rtc-date). A date is a seed of the
# kernel's random pool, and so of the schedule two vCPUs draw (docs/smp-icount.md): each
# draw's point is exact, the draws of one kernel differ, and the judge takes the larger of
# the two sides' spreads into the gate. Draw 1 is boot-point.sh's own date: its
# point is a run's without draws, kept under the same key.
draw_date() { printf '2024-06-%02d' "$1"; }
# draw_dir LABEL D: where draw D of step LABEL goes: LABEL itself, then LABEL-dD.
draw_dir() { if [ "$2" = 1 ]; then printf '%s' "$1"; else printf '%s-d%s' "$1" "$2"; fi; }
# draw_key K D: step K's point key for draw D, its text in $SCRATCH/key-K-D (draw 1's: the
# step's own).
draw_key() {
	cp "$SCRATCH/key-$1" "$SCRATCH/key-$1-$2"
	[ "$2" = 1 ] || echo "rtc $(draw_date "$2")" >>"$SCRATCH/key-$1-$2"
	hash_of "$SCRATCH/key-$1-$2"
}
draw=1 draw_said="" boot_date=""

# wait_ready K: until the builder has handed step K over (naps that end as a signal comes);
# a builder that ended without it has failed, and so has the booter.
wait_ready() {
	while [ ! -e "$SCRATCH/ready/$1" ]; do
		child_running "$builder_pid" || [ -e "$SCRATCH/ready/$1" ] || exit "$CANNOT"
		start_child sleep 1
		wait_child "$CHILD" || true
	done
}

builder() {
	job_begin builder
	in_job=builder
	job_ends builder
	_bj_k=0
	while [ "$_bj_k" -le "$last_step" ]; do
		build_step "$_bj_k"
		_bj_k=$((_bj_k + 1))
	done
}

booter() {
	job_begin booter
	in_job=booter
	job_ends booter
	_bo_k=0
	while [ "$_bo_k" -le "$last_step" ]; do
		wait_ready "$_bo_k"
		step_get "$_bo_k"
		_bo_d=0
		[ -z "$(cat "$SCRATCH/ready/$_bo_k")" ] || _bo_d=1 # not built: named already
		while [ "$_bo_d" -ge 1 ] && [ "$_bo_d" -le "$draws" ]; do
			draw=$_bo_d draw_said="" boot_date=""
			if [ "$draws" -gt 1 ]; then
				draw_said="draw $draw ($(draw_date "$draw")): "
				[ "$draw" = 1 ] || boot_date=$(draw_date "$draw")
			fi
			_bo_key=$(draw_key "$_bo_k" "$draw")
			_bo_dir=$(draw_dir "$st_label" "$draw")
			if [ -f "$cache/points/$_bo_key/booted" ]; then
				reuse "$_bo_k" "$_bo_key" "$_bo_dir"
				if [ "$recheck" = 1 ]; then
					# A check: a boot again that fails ends the run, whatever the form.
					boot "$_bo_k" "$st_label-recheck" "again (--recheck)" "$@" ||
						fail_run "[$(tag "$_bo_k")] boot again (--recheck) $BOOT_WHAT $BOOT_HOW: $out/$BOOT_LOG"
					: >"$SCRATCH/done/$_bo_k.recheck"
				fi
			elif boot "$_bo_k" "$_bo_dir" "${draw_said%: }" "$@"; then
				keep "$_bo_k" "$_bo_key" "$_bo_dir"
			else
				step_failed "$_bo_k" "$BOOT_WHAT" "$BOOT_HOW" "$BOOT_LOG"
				break
			fi
			_bo_d=$((_bo_d + 1))
		done
		[ "$_bo_d" -le "$draws" ] || : >"$SCRATCH/done/$_bo_k"
		_bo_k=$((_bo_k + 1))
	done
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

# job_ends NAME: as the job ends, whatever ends it, its exit status is kept
# ($SCRATCH/NAME.status) and the script told (USR1), whose wait that ends.
job_ends() {
	# shellcheck disable=SC2064 # NAME, now
	trap "echo \$? >'$SCRATCH/$1.status'; kill -USR1 $MAIN 2>/dev/null" EXIT
}

# jobs_finish: the builder and the booter waited for, by their status files (a wait that
# a signal ended cannot tell a job's status from the signal's); one that failed ends the
# run at once (failed.txt in the run's directory says why, or its status does).
jobs_finish() {
	while :; do
		[ ! -s "$work/failed.txt" ] || fail_run "$(cat "$work/failed.txt")"
		_jf_done=0
		for _jf in builder booter; do
			[ -f "$SCRATCH/$_jf.status" ] || continue
			_jf_done=$((_jf_done + 1))
			_jf_rc=$(cat "$SCRATCH/$_jf.status")
			[ "$_jf_rc" = 0 ] || fail_run "the $_jf ended with status $_jf_rc"
		done
		[ "$_jf_done" -lt 2 ] || break
		wait "$booter_pid" 2>/dev/null || true
	done
	wait_child "$builder_pid" 2>/dev/null || true
	wait_child "$booter_pid" 2>/dev/null || true
}

# cannot WHY: the run cannot go on (exit 125), what it made kept (fail_run); in a job, the
# script is told and ends the run.
cannot() {
	say "$*"
	fail_run "$*"
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

in_job=""
temp_dir work "$(dirname "$out")/.$(basename "$out").XXXXXX" ||
	usage_error "-o: cannot create a directory in $(dirname "$out") (not writable?)"
chmod "$(printf %o $((0777 & ~$(umask))))" "$work"
cost_map=""
[ "$cost" = 0 ] || cost_map=1
cache_layout
k=0
while [ "$k" -le "$last_step" ]; do
	slot_recover "$k"
	k=$((k + 1))
done
case $form in
revisions) say "base $(printf '%.12s' "$base_sha"), head $(printf '%.12s' "$head_sha") of $tree" ;;
series) say "a series of $last_step step(s) in $tree: ${range%%..*} and each commit up to ${range#*..}" ;;
each) say "a series of $last_step step(s): $tree, then each patch applied on the ones before" ;;
patches) say "base $tree as it is, head with $(sed 's|.*/||' "$SCRATCH/patches" | paste -sd ' ')" ;;
trees) say "base $base_src, head $head_src" ;;
esac

# The jobs: the builder, the booter, the heartbeat.
trap ':' USR1
heartbeat &
adopt "$!"
beat=$!
builder &
adopt "$!"
builder_pid=$!
booter "$@" &
adopt "$!"
booter_pid=$!
jobs_finish
kill "$beat" 2>/dev/null || true
wait_child "$beat" 2>/dev/null || true
trap '' USR1

# The steps as the judge reads them (steps.tsv: LABEL, ID, SUBJECT, and why a step was not
# measured), and its boots: each measured step's, and its boot again (--recheck).
: >"$work/steps.tsv"
set --
measured=0 k=0
while [ "$k" -le "$last_step" ]; do
	step_get "$k"
	why=""
	[ ! -f "$SCRATCH/failed/$k" ] || why=$(cat "$SCRATCH/failed/$k")
	printf '%s\t%s\t%s\t%s\n' "$st_label" "$st_id" "$st_subject" "$why" >>"$work/steps.tsv"
	if [ -f "$SCRATCH/done/$k" ]; then
		d=1
		while [ "$d" -le "$draws" ]; do
			set -- "$@" "$st_label=$(draw_dir "$st_label" "$d")"
			d=$((d + 1))
		done
		[ ! -f "$SCRATCH/done/$k.recheck" ] || set -- "$@" "$st_label=$st_label-recheck"
		measured=$((measured + 1))
	fi
	k=$((k + 1))
done
[ "$measured" -ge 2 ] || fail_run "$measured step(s) of $nsteps measured: nothing to compare"

# The table: the binary's judge reads the points and writes ab.tsv, ab.txt (also on
# stdout), compare/ and mail/ (a series: series.tsv, and a table per step); its exit is
# the run's.
t=$(now)
say "[table] uring-repro ab"
judge=0
exact=""
[ "$recheck" = 0 ] || exact=--exact
if [ "$form" = revisions ]; then
	set -- --introduced "$(printf '%.12s' "$head_sha")" --parent "$(printf '%.12s' "$base_sha")" "$@"
fi
(cd "$work" && "$bin" ab --gate-insn "$gate" $exact --steps steps.tsv ${re:+--re "$re"} "$@") ||
	judge=$?
say "[table] $(secs "$t") s"
case $judge in
0 | 1 | "$CANNOT") ;;
*) fail_run "uring-repro ab could not make the table (exit $judge)" ;;
esac
publish || exit "$CANNOT"
case $form in
series | each) say "$out: ab.txt, series.tsv, steps.tsv, the points (a directory a step), compare/, mail/ (series.txt: the reply), the logs" ;;
*) say "$out: ab.txt, ab.tsv, steps.tsv, the points (a directory a step), compare/, mail/, the logs" ;;
esac
exit "$judge"
