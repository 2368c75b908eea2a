#!/usr/bin/env bash
# Kernel tests: both regressions reproduced on real kernels built from source, measured on
# QEMU's instruction clock.
#
# Why: a TCG timing says what a kernel does, not how fast; on a box without usable KVM (most
# shared cloud VMs) uring-repro could show a kernel change only as plumbing. Under
# `boot-point.sh --accel icount` a point counts guest instructions per pair, exactly and the
# same every boot (docs/reproduction.md), so a real kernel change can be seen and judged
# anywhere. This builds Debian's linux-source-6.12 with scripts/build-kernel.sh (tinyconfig +
# kernel/uring-repro.config): the parent, the source as shipped (it does not carry
# 079afb081c42), in full. Then scripts/ab.sh builds and measures the kernels made from it,
# each incrementally from the one before (its slots, in one cache), every profile in one
# boot per kernel, a kernel booted once (its points reused after), and the tables and points
# are asserted (tests/kernel/ab-checks.sh):
#   the fix series, patch by patch: the child (+ kernel/child-futex-inflight.patch,
#           079afb081c42 forward-ported) moves the futex profiles; fix1 (+
#           kernel/fix1-futex-wake-not-inflight.patch, the first follow-up) lowers s0 by a
#           WAKE's tracking, two locked instructions a pair; fix2 (+
#           kernel/fix2-futex-private-inflight.patch, the second; docs/fixes.md) lowers
#           shared s0 and leaves private s0's tracking;
#   the same again with --recheck: every point booted again, the same line for line;
#   poll    the parent + kernel/poll-skip-redundant-wakeups.patch (the "skip redundant
#           poll wakeups" mechanism): pollwake moves;
#   Max Kellermann's io-wq series (kernel/kellermann/), patch by patch: what its source
#           makes certain of a0, c0, pollwake and n0 (docs/series.md);
#   "Avoid unnecessary io-wq worker creation" (kernel/io-wq-creation/), patch by patch:
#           the first is the parent's image, the second lowers b0 (docs/io-wq.md);
#   the parent booted twice at once with two vCPUs: every point the same;
#   a stretch of harmless commits, commit by commit: nothing.
# Then a real `git bisect run` of scripts/bisect-step.sh over a git history of the same
# source (kernel/bisect/series: seven commits, the child's change fourth), every step an
# incremental build and an icount boot: git must name the child's commit.
#
# Options: --help. Output: one TAP-like line per case, then "N passed, N failed, N skipped"
# and the times. Exit status: 0 iff no case failed and one passed; 1 a case failed; 2 on a
# usage error; 4 every case skipped; 130 interrupted. With CI set in the environment a case
# that would skip fails instead.
set -Eeuo pipefail
# Output helpers, results (a skip fails under CI), apt, the ERR trap, HERE and REPO.
# shellcheck source=../lib/harness.sh
. "$(dirname -- "${BASH_SOURCE[0]}")/../lib/harness.sh"

# The cache's layout: DEFAULT_CACHE, DEFAULT_SOURCE_VERSION, OBJ, IMAGE.
# shellcheck source=layout.sh
. "$HERE/layout.sh"

# Defaults, named so --help and the code agree.
readonly DEFAULT_TIMEOUT=600 # seconds per boot; one takes 10-40 s here under icount
readonly SOURCE_PKG=linux-source-6.12
readonly CHILD_PATCH=$REPO/kernel/child-futex-inflight.patch
readonly POLL_PATCH=$REPO/kernel/poll-skip-redundant-wakeups.patch
# The maintainer's two follow-ups to 079afb081c42, on the child (docs/fixes.md).
readonly FIX1_PATCH=$REPO/kernel/fix1-futex-wake-not-inflight.patch
readonly FIX2_PATCH=$REPO/kernel/fix2-futex-private-inflight.patch
# Build tools (Debian packages) and the QEMU that boots the kernels.
readonly BUILD_PKGS=(make gcc libc6-dev flex bison bc libelf-dev libssl-dev xz-utils patch qemu-system-x86)
# The commit the child reproduces, for report's mail.
readonly INTRODUCED=079afb081c42
# Boots of one kernel must agree exactly: every round's figure, to the printed decimal
# (docs/reproduction.md: five boots of each kernel gave identical points).
readonly SPREAD_TOLERANCE=0
# n0 is the NOP control: no futex code runs, so parent and child may differ only by what
# else falls into the spans: the timer tick's work (+0.011 over 125 functions, none of
# io_uring's, in kernels without CONFIG_NET), or a context switch into a kthread (the
# fixtures' child: into RCU's grace-period kthread, +0.843 a NOP).
readonly N0_TOLERANCE=1.0 # instructions per pair
# The bisect's history: one commit per line on top of the parent's source (kernel/bisect/).
readonly SERIES=$REPO/kernel/bisect/series
# Its references are s0 points of both ends, 3.9% apart in instructions: under compare's
# default gate of 5% (set for wall time), which would refuse them as too close to decide.
readonly BISECT_GATE=2
# Every commit of that history has this author and date, a minute apart: the same commits,
# hashes and all, on every machine.
readonly BISECT_NAME='uring-repro bisect' BISECT_EMAIL=bisect@uring-repro.invalid
readonly BISECT_EPOCH=1764547200 # 2025-12-01 00:00:00 UTC
# The bisect's ends differ by the child's change among harmless ones: their s0 points (runs
# of the report's contract) differ by what ab found between parent and child (the suite's
# shorter runs), within this: two contracts, two images each, so the ticks fall elsewhere
# (measured: 58.036 against 57.995), and a timer interrupt more or less in one kernel's
# spans of ab's 10,240 pairs moves its change by 0.229 (2,347 instructions; a run after the
# guest's date was fixed: ab's +58.217 against the ends' 58.019). The good end is the
# parent's image byte for byte.
readonly BUILD_TOLERANCE=0.35 # instructions per pair

usage() {
	cat <<EOF
usage: $0 --bin PATH [options]

  --bin PATH          the x86_64 uring-repro to boot (a release build)
  --cache DIR         sources, trees and object directories, kept between runs (default:
                      $DEFAULT_CACHE; env URING_REPRO_KERNEL_CACHE)
  --keep DIR          keep the points, logs and the report in DIR (default: a temporary
                      directory, removed at exit)
  --fixtures DIR      also copy the points and the report there when every case passed
                      (the repository's are tests/fixtures/kernel)
  --jobs N            make -jN (default: the number of online CPUs)
  --timeout S         per boot (default: $DEFAULT_TIMEOUT)
  --source-version V  the $SOURCE_PKG version (default: $DEFAULT_SOURCE_VERSION, else the
                      archive's candidate)
  -h, --help          this text
EOF
}

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# result_fail NAME REASON [LOG]: not ok, with LOG's last lines.
result_fail() {
	result_not_ok "$1" "$2"
	if [[ -n ${3:-} && -e $3 ]]; then
		tail -n 15 "$3" | sed 's/^/#   | /'
	fi
}
# Times, reported at the end.
TIMES=()
timed() { TIMES+=("$1: $2 s"); }

# ---------------------------------------------------------------------------------------
# Tools: the build dependencies and QEMU, installed with apt when missing (root only).
ensure_tools() {
	local p missing=()
	for p in "${BUILD_PKGS[@]}"; do
		[[ $(dpkg-query -W -f '${Status}' "$p" 2>/dev/null) == *' installed' ]] || missing+=("$p")
	done
	((${#missing[@]} == 0)) && return 0
	apt_install "$WORK/apt-install.log" "${missing[@]}"
}

# fetch_source: SRC_VERSION and SRC_DEB (the .deb in the cache), or status 1 with WHY set.
WHY=""
fetch_source() {
	local want=$1 v deb
	mkdir -p "$CACHE/deb"
	for v in "$want" candidate; do
		if [[ $v == candidate ]]; then
			v=$(apt-cache policy "$SOURCE_PKG" 2>/dev/null | sed -n 's/^ *Candidate: //p')
			if [[ -z $v || $v == '(none)' ]]; then
				note "apt-get update (no candidate for $SOURCE_PKG)"
				apt-get -q update >"$WORK/apt-update.log" 2>&1 || true
				v=$(apt-cache policy "$SOURCE_PKG" 2>/dev/null | sed -n 's/^ *Candidate: //p')
			fi
			[[ -n $v && $v != '(none)' ]] || break
			warn "$SOURCE_PKG $want is not to be had; using the archive's $v (figures may differ from the fixtures)"
		fi
		deb=$CACHE/deb/${SOURCE_PKG}_${v//:/%3a}_all.deb
		if [[ ! -s $deb ]]; then
			note "apt-get download $SOURCE_PKG=$v"
			# apt downloads as _apt where it can: let it write to a fresh directory.
			local tmp
			tmp=$(mktemp -d "$CACHE/deb/.dl.XXXXXX")
			if id _apt >/dev/null 2>&1; then chown _apt "$tmp" 2>/dev/null || true; fi
			if ! (cd "$tmp" && apt-get -q download "$SOURCE_PKG=$v") >"$WORK/download.log" 2>&1; then
				rm -rf "$tmp"
				[[ $v == "$want" ]] && continue
				WHY="apt-get download $SOURCE_PKG=$v failed: $(grep -m1 '^E:' "$WORK/download.log" || echo 'no E: line')"
				return 1
			fi
			mv "$tmp"/*.deb "$deb" && rm -rf "$tmp"
		fi
		SRC_VERSION=$v SRC_DEB=$deb
		return 0
	done
	WHY="no $SOURCE_PKG to be had from apt (offline?)"
	return 1
}

# unpack_source: $ROOT/parent, the pristine tree (unpacked once; the stamp says it is whole).
unpack_source() {
	[[ -e $ROOT/parent/.uring-repro-unpacked ]] && return 0
	note "unpacking $SRC_DEB into $ROOT/parent"
	rm -rf "$ROOT/parent" "$ROOT/.unpack"
	mkdir -p "$ROOT/.unpack"
	dpkg-deb --fsys-tarfile "$SRC_DEB" | tar -x -O ./usr/src/linux-source-6.12.tar.xz |
		tar -xJ -C "$ROOT/.unpack"
	mv "$ROOT/.unpack/linux-source-6.12" "$ROOT/parent"
	rm -rf "$ROOT/.unpack"
	: >"$ROOT/parent/.uring-repro-unpacked"
}

# link_tree DIR: DIR made anew, the parent's tree in it hard-linked, without its objdir and
# stamp. patch(1) and git write a file they change as a new one, so the parent's files stay
# as they are.
link_tree() {
	local e
	rm -rf "$1"
	mkdir "$1"
	for e in "$ROOT"/parent/* "$ROOT"/parent/.[!.]*; do
		[[ ${e##*/} == "$OBJ" || ${e##*/} == .uring-repro-unpacked ]] || cp -al "$e" "$1/"
	done
}

# apply_patch DIR PATCH LOG: patch(1) in DIR, or status 1 with WHY set.
apply_patch() {
	patch -p1 -s --no-backup-if-mismatch -d "$1" <"$2" >"$3" 2>&1 && return 0
	WHY="${2##*/} does not apply to $SOURCE_PKG $SRC_VERSION: $(head -n 3 "$3" | tr '\n' ' ')"
	return 1
}

# build NAME [WHAT]: build-kernel.sh in $ROOT/NAME, timed, its log build-WHAT.log (WHAT:
# NAME unless given); IMG[NAME] set on success.
declare -A IMG=()
build() {
	local name=$1 what=${2:-$1} t0 img
	t0=$(now)
	if img=$("$REPO/scripts/build-kernel.sh" --src "$ROOT/$name" --jobs "$JOBS" 2>"$WORK/build-$what.log"); then
		IMG[$name]=$img
		timed "build $what" "$(since "$t0")"
		return 0
	fi
	timed "build $what (failed)" "$(since "$t0")"
	return 1
}

# bisect_tree: $ROOT/bisect, a git history on Debian's source: its first commit the parent's
# tree as shipped, less the Debian packaging line `/*` of the top .gitignore (it would hide
# every file from git), tagged as the release (v6.12.117, annotated: kbuild then calls its
# build 6.12.117, as the parent's, and every later commit's 6.12.117+), then a commit per
# line of kernel/bisect/series, each its patch applied with patch(1). The parent's built
# objdir is copied in, so every build in the tree is incremental. Kept while the source,
# the series, its patches and this code are the same (the stamp), made anew otherwise. Sets
# BISECT_GOOD (the first commit), BISECT_BAD (the last) and BISECT_TRACKING (the child's
# patch); status 1 with WHY set when it cannot be made.
bisect_tree() {
	local dir=$ROOT/bisect stamp patch subject k=0 p tag
	local -a git=(git -C "$dir" -c user.name="$BISECT_NAME" -c user.email="$BISECT_EMAIL" -c commit.gpgsign=false -c tag.gpgsign=false)
	stamp=$({
		echo "$SRC_VERSION"
		cat "$SERIES"
		grep -v '^#' "$SERIES" | cut -f1 | while read -r p; do cat "$REPO/kernel/$p"; done
		declare -f bisect_tree commit_at
	} | sha256sum | cut -d' ' -f1)
	if [[ ! -e $dir/.uring-repro-bisect || $(head -n 1 "$dir/.uring-repro-bisect") != "$stamp" ]]; then
		note "making the bisect's history in $dir (git add of the whole source: a minute or two)"
		link_tree "$dir"
		# A new .gitignore (sed writes a new file: the parent's link stays as it is).
		sed '/^\/\*$/d' "$dir/.gitignore" >"$dir/.gitignore.new" && mv "$dir/.gitignore.new" "$dir/.gitignore"
		# shellcheck disable=SC2015 # either one failing is the failure
		git init -q -b series "$dir" && "${git[@]}" add -A || {
			WHY="git init or git add failed in $dir"
			return 1
		}
		commit_at 0 "Linux $SRC_VERSION: Debian's $SOURCE_PKG as shipped" "" || return 1
		tag=v$(awk '$2 == "=" && $1 ~ /^(VERSION|PATCHLEVEL|SUBLEVEL)$/ { v = v (v == "" ? "" : ".") $3 }
			$1 == "SUBLEVEL" { print v; exit }' "$dir/Makefile")
		GIT_COMMITTER_DATE="@$BISECT_EPOCH +0000" "${git[@]}" tag -a "$tag" -m "Linux ${tag#v}" || {
			WHY="git tag $tag failed"
			return 1
		}
		while IFS=$'\t' read -r patch subject; do
			[[ -z $patch || $patch == '#'* ]] && continue
			k=$((k + 1))
			apply_patch "$dir" "$REPO/kernel/$patch" "$WORK/bisect-$k.patch.log" || return 1
			commit_at "$k" "$subject" "$(sed -n '/^--- /q; p' "$REPO/kernel/$patch")" -a || return 1
			printf '%s\t%s\n' "$("${git[@]}" rev-parse HEAD)" "$patch" >>"$dir/.uring-repro-commits"
		done <"$SERIES"
		cp -a "$ROOT/parent/$OBJ" "$dir/$OBJ"
		objdir_moved "$ROOT/parent/$OBJ" "$dir/$OBJ"
		printf '%s\n' "$stamp" >"$dir/.uring-repro-bisect"
	fi
	"${git[@]}" bisect reset >/dev/null 2>&1 || true
	BISECT_GOOD=$("${git[@]}" rev-list --max-parents=0 series)
	BISECT_BAD=$("${git[@]}" rev-parse series)
	BISECT_TRACKING=$(awk -F'\t' -v p="${CHILD_PATCH#"$REPO"/kernel/}" '$2 == p { print $1 }' "$dir/.uring-repro-commits")
	[[ -n $BISECT_TRACKING ]] || {
		WHY="kernel/bisect/series has no commit of ${CHILD_PATCH#"$REPO"/}"
		return 1
	}
}
# commit_at K SUBJECT BODY [GIT-COMMIT-OPTIONS]: commit K of the history, at its fixed date
# (with bisect_tree's git command).
commit_at() {
	local when="@$((BISECT_EPOCH + $1 * 60)) +0000" msg=$2
	[[ -z $3 ]] || msg=$(printf '%s\n\n%s' "$2" "$3")
	GIT_AUTHOR_DATE=$when GIT_COMMITTER_DATE=$when "${git[@]}" commit -q --no-verify "${@:4}" -m "$msg" && return 0
	WHY="git commit $1 ($2) failed"
	return 1
}

# ---------------------------------------------------------------------------------------
# Points. POINTS[key] is the point file of a boot that passed.
declare -A POINTS=()
BOOTS=()
# boot KEY KERNEL RUN-OPTIONS...: one boot-point.sh --accel icount --cost (the kernel's
# System.map, which the build leaves in its objdir beside arch/); status 0 iff a point.
boot() {
	local key=$1 kernel=$2 t0 rc=0
	shift 2
	local point=$WORK/points/$key.txt
	t0=$(now)
	"$REPO/scripts/boot-point.sh" --kernel "${IMG[$kernel]}" -o "$point" --accel icount \
		--cost "${IMG[$kernel]%/"$IMAGE"}/System.map" \
		--timeout "$TIMEOUT" --bin "$BIN" -- "$@" >"$WORK/boot-$key.log" 2>&1 || rc=$?
	BOOTS+=("$key $(since "$t0")")
	note "boot $key: $(tail -n 1 "$WORK/boot-$key.log")"
	((rc == 0)) && [[ -s $point ]] || return 1
	POINTS[$key]=$point
}

# mean FILE [MODE]: the mean row's ns/pair (instructions per pair under icount); with MODE,
# the mean row of that mode in a pollwake table (`pollwake_MODE  mean  pairs  ns_per_pair`).
mean() {
	if (($# == 1)); then
		awk -F'\t' '$1 == "mean" { print $3; exit }' "$1"
	else
		awk -F'\t' -v m="pollwake_$2" '$1 == m && $2 == "mean" { print $4; exit }' "$1"
	fi
}
# rounds FILE: every measured round's figure, one a line.
rounds() { awk -F'\t' '$1 ~ /^[0-9]+$/ { print $3 }' "$1"; }
# field TSV NAME [ROW]: the value of column NAME (by the header line's names) in TSV's first
# row (compare's --tsv output), or in the row whose first column is ROW (ab.tsv).
field() {
	awk -F'\t' -v n="$2" -v r="${3-}" -v by_row="${3+1}" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) c = i; next }
		c && (by_row ? $1 == r : NR == 2) { print $c; exit }' "$1"
}
# num A OP B: awk's arithmetic comparison of two decimals.
num() { awk -v a="$1" -v b="$3" "BEGIN { exit !(a $2 b) }"; }

# ---------------------------------------------------------------------------------------
main() {
	local keep="" fixtures="" version=$DEFAULT_SOURCE_VERSION t_all
	BIN="" CACHE=$DEFAULT_CACHE TIMEOUT=$DEFAULT_TIMEOUT JOBS=$(getconf _NPROCESSORS_ONLN)
	option() { usage_error "unknown argument '$1'"; }
	read_options '
	--bin             BIN       exe
	--cache           CACHE     new_dir
	--keep            keep      new_dir
	--fixtures        fixtures  new_dir
	--jobs            JOBS      positive
	--timeout         TIMEOUT   positive
	--source-version  version   text
	' "$@"
	shift "$OPTIONS_READ"
	(($# == 0)) || usage_error "unknown argument '$1'"
	[[ -n $BIN ]] || usage_error "--bin PATH is required"
	# bisect-step.sh judges its points with this checkout's own build: known before any build.
	[[ -x $REPO/target/release/uring-repro ]] ||
		usage_error "$REPO/target/release/uring-repro is not built (cargo build --release): the bisect's steps judge their points with it"
	opt_value CACHE new_dir --cache "$CACHE"
	work_dir "$keep" kernel
	mkdir -p "$WORK/points" "$CACHE"
	t_all=$(now)

	# One run at a time per cache: trees and objdirs are rebuilt in place.
	exec {lockfd}>"$CACHE/.lock"
	flock "$lockfd"

	local t0 reasons=()
	if ! ensure_tools; then
		result_skip build-parent "the build tools or QEMU are missing and cannot be installed (not root): ${BUILD_PKGS[*]}"
		finish "$t_all"
	fi
	t0=$(now)
	if ! fetch_source "$version"; then
		result_skip build-parent "$WHY"
		finish "$t_all"
	fi
	ROOT=$CACHE/$SRC_VERSION
	mkdir -p "$ROOT"
	unpack_source
	timed "source ($SOURCE_PKG $SRC_VERSION: fetch and unpack, or found in the cache)" "$(since "$t0")"

	# The parent, built in full; the kernels made from it are ab's to build, each from the
	# one before (ab-checks.sh).
	if build parent; then
		result_ok "build-parent"
	else
		result_fail build-parent "build-kernel.sh failed" "$WORK/build-parent.log"
	fi

	# Bad input: a fragment option the tree does not know, and one whose dependency is unmet.
	# Both named, nothing built (a scratch objdir: configuring only).
	if [[ -d $ROOT/parent ]]; then
		local frag=$WORK/bad.config rc=0 out=$WORK/bad-fragment.log
		printf '%s\n' '# a fragment with two options that cannot survive' \
			'CONFIG_URING_REPRO_NO_SUCH_OPTION=y' 'CONFIG_KVM=y' >"$frag"
		# An image an earlier build left there must go: the caller would take it for this one.
		mkdir -p "$(dirname "$WORK/bad-obj/$IMAGE")"
		echo 'an earlier build' >"$WORK/bad-obj/$IMAGE"
		t0=$(now)
		"$REPO/scripts/build-kernel.sh" --src "$ROOT/parent" --objdir "$WORK/bad-obj" \
			--fragment "$frag" --jobs "$JOBS" >"$WORK/bad-fragment.out" 2>"$out" || rc=$?
		timed "a bad fragment refused (configure only)" "$(since "$t0")"
		reasons=()
		((rc == 1)) || reasons+=("exit $rc, not 1")
		grep -q '^build-kernel.sh: CONFIG_URING_REPRO_NO_SUCH_OPTION: .* does not know this option' "$out" ||
			reasons+=("the unknown option is not named")
		grep -q "^build-kernel.sh: CONFIG_KVM: asked 'CONFIG_KVM=y', olddefconfig left 'no line for it' (its dependencies do not allow it" "$out" ||
			reasons+=("the option with an unmet dependency is not named")
		[[ ! -s $WORK/bad-fragment.out && ! -e $WORK/bad-obj/$IMAGE ]] ||
			reasons+=("it built anyway, or left the earlier image in place")
		judge build-kernel-bad-fragment "$out" "${reasons[@]}"
		rm -rf "$WORK/bad-obj"
	fi

	# The boots, on the instruction clock: ab, the fix series patch by patch and again with
	# --recheck (s0's sandwich parent, child, child, parent), then the poll change, every
	# profile in one boot per kernel, a kernel booted once.
	local k
	if [[ -n ${IMG[parent]:-} ]]; then
		ab_fixes
		ab_recheck
		ab_poll
		ab_kellermann
		ab_iowq
		smp_exact
	fi
	local want key
	for key in s0-parent-1 s0-child-1 s0-child-2 s0-parent-2 n0-parent n0-child v0-parent \
		v0-child c0-parent c0-child pollwake-parent pollwake-poll pollwake-child s0-shared-parent s0-shared-child \
		s0-fix1 s0-shared-fix1 s0-fix2 s0-shared-fix2; do
		if [[ -n ${POINTS[$key]:-} ]]; then
			reasons=()
			grep -q '^# checks: .* -> PASS$' "${POINTS[$key]}" || reasons+=("no passing checks line")
			grep -q '^# uring-repro .* timebase=icount' "${POINTS[$key]}" ||
				reasons+=("the banner does not say timebase=icount")
			grep -q '^# unit=guest_instructions_per_pair ' "${POINTS[$key]}" ||
				reasons+=("no unit line")
			grep -q '^# boot_id_source=/uring-repro.boot_id ' "${POINTS[$key]}" ||
				reasons+=("the boot_id is not the one boot-point.sh put in the initramfs")
			judge "boot-$key" "${POINT_LOG[$key]}" "${reasons[@]}"
		fi
	done

	# Boots of one kernel agree: every round, to the printed decimal.
	local a b
	for k in parent child; do
		a=${POINTS[s0-$k-1]:-} b=${POINTS[s0-$k-2]:-}
		[[ -n $a && -n $b ]] || continue
		reasons=()
		if ! diff -q <(rounds "$a") <(rounds "$b") >/dev/null; then
			reasons+=("the rounds of two boots differ (tolerance $SPREAD_TOLERANCE): $(diff <(rounds "$a") <(rounds "$b") | grep '^[<>]' | head -n 4 | tr '\n' ' ')")
		fi
		[[ $(rounds "$a" | wc -l) -gt 0 ]] || reasons+=("no rounds")
		[[ $(grep -o 'boot_id=[^ ]*' "$a") != "$(grep -o 'boot_id=[^ ]*' "$b")" ]] ||
			reasons+=("the two points share a boot_id")
		judge "s0-$k-boots-agree" "$b" "${reasons[@]}"
	done

	# s0: the child costs more per pair, clear of zero: compare's between-boot interval is
	# exact (the boots agree) and above zero, its within-boot one too; and every child
	# round is above every parent round.
	local p1=${POINTS[s0-parent-1]:-} p2=${POINTS[s0-parent-2]:-} c1=${POINTS[s0-child-1]:-} c2=${POINTS[s0-child-2]:-}
	if [[ -n $p1 && -n $p2 && -n $c1 && -n $c2 ]]; then
		local pm cm pmax cmin
		pm=$(mean "$p1") cm=$(mean "$c1")
		pmax=$(cat <(rounds "$p1") <(rounds "$p2") | sort -g | tail -n 1)
		cmin=$(cat <(rounds "$c1") <(rounds "$c2") | sort -g | head -n 1)
		# In the points' directory, with their names as typed: the draft's own command line
		# is then the same on every machine.
		local sandwich=(parent=s0-parent-1.txt child=s0-child-1.txt child=s0-child-2.txt parent=s0-parent-2.txt)
		(cd "$WORK/points" && "$BIN" compare "${sandwich[@]}") >"$WORK/compare-s0.txt" 2>&1 || true
		(cd "$WORK/points" && "$BIN" compare --tsv "${sandwich[@]}") >"$WORK/compare-s0.tsv" 2>&1 || true
		local t=$WORK/compare-s0.tsv lo hi
		lo=$(field "$t" between_ci95_low_pct) hi=$(field "$t" between_ci95_high_pct)
		reasons=()
		[[ $(field "$t" timebase) == icount ]] || reasons+=("compare does not read the points as icount")
		[[ -n $lo && $lo == "$hi" ]] || reasons+=("the between-boot interval is not exact: $lo .. $hi")
		num "${lo:-0}" '>' 0 || reasons+=("the between-boot change $lo% is not above zero")
		num "$(field "$t" within_ci95_low_pct)" '>' 0 || reasons+=("the within-boot interval reaches zero")
		num "$cm" '>' "$pm" || reasons+=("child mean $cm is not above the parent's $pm")
		num "$cmin" '>' "$pmax" || reasons+=("the lowest child round $cmin is not above the highest parent round $pmax")
		judge s0-child-above-parent "$t" "${reasons[@]}"
		note "s0: parent $pm, child $cm instructions per pair: $(awk -v a="$pm" -v b="$cm" 'BEGIN { printf "%+.3f (%+.3f%%)", b - a, (b - a) / a * 100 }')"
		(cd "$WORK/points" && "$BIN" report --introduced "$INTRODUCED" "${sandwich[@]}") \
			>"$WORK/report-s0.txt" 2>"$WORK/report-s0.err" && rc=0 || rc=$?
		reasons=()
		((rc == 0)) || reasons+=("report exited $rc: $(head -n 2 "$WORK/report-s0.err" | tr '\n' ' ')")
		[[ -s $WORK/report-s0.txt ]] || reasons+=("an empty draft")
		awk 'length > 72 { bad = 1 } END { exit bad }' "$WORK/report-s0.txt" || reasons+=("a line over 72 columns")
		judge s0-report "$WORK/report-s0.err" "${reasons[@]}"
	fi

	# n0: the NOP control does not move: compare's interval holds zero, and the change is
	# within the tolerance.
	a=${POINTS[n0-parent]:-} b=${POINTS[n0-child]:-}
	if [[ -n $a && -n $b ]]; then
		local d
		d=$(awk -v a="$(mean "$a")" -v b="$(mean "$b")" 'BEGIN { d = b - a; printf "%.6f", d < 0 ? -d : d }')
		(cd "$WORK/points" && "$BIN" compare --tsv parent=n0-parent.txt child=n0-child.txt) \
			>"$WORK/compare-n0.tsv" 2>&1 || true
		reasons=()
		num "$d" '<=' "$N0_TOLERANCE" || reasons+=("n0 moved by $d instructions per pair (at most $N0_TOLERANCE)")
		[[ ,$(field "$WORK/compare-n0.tsv" reasons), == *,ci_includes_zero,* ]] ||
			reasons+=("compare finds a change: $(field "$WORK/compare-n0.tsv" reasons)")
		judge n0-unchanged "$b" "${reasons[@]}"
		note "n0: parent $(mean "$a"), child $(mean "$b"): |change| $d"
	fi
	for p in v0 c0; do
		a=${POINTS[$p-parent]:-} b=${POINTS[$p-child]:-}
		[[ -n $a && -n $b ]] && note "$p: parent $(mean "$a"), child $(mean "$b")"
	done

	# pollwake: the idle epoll set's overhead per completion (idle minus none) is lower on
	# the poll kernel.
	a=${POINTS[pollwake-parent]:-} b=${POINTS[pollwake-poll]:-}
	if [[ -n $a && -n $b ]]; then
		local oa ob
		oa=$(awk -v i="$(mean "$a" idle)" -v n="$(mean "$a" none)" 'BEGIN { printf "%.6f", i - n }')
		ob=$(awk -v i="$(mean "$b" idle)" -v n="$(mean "$b" none)" 'BEGIN { printf "%.6f", i - n }')
		reasons=()
		[[ -n $(mean "$a" idle) && -n $(mean "$b" idle) ]] || reasons+=("no idle mode in the points")
		num "$ob" '<' "$oa" || reasons+=("idle overhead $ob on poll is not below the parent's $oa")
		judge pollwake-idle-overhead-lower "$b" "${reasons[@]}"
		note "pollwake idle - none: parent $oa, poll $ob instructions per completion"
	fi

	cost_checks

	# A real git bisect run over real kernel builds: it must name the tracking change. Then
	# ab over its harmless commits.
	if [[ -n ${IMG[parent]:-} ]]; then
		bisect_case
		[[ -z ${BISECT_TRACKING:-} ]] || ab_series
	fi

	# Fixtures are a whole passing run's, or none: a failed case leaves the kept ones as
	# they were.
	if [[ -n $fixtures ]] && ((FAILED > 0)); then
		warn "nothing copied to $fixtures: $FAILED case(s) failed"
	elif [[ -n $fixtures ]]; then
		mkdir -p "$fixtures"
		for key in "${!POINTS[@]}"; do cp "${POINTS[$key]}" "$fixtures/$key.txt"; done
		[[ -s $WORK/report-s0.txt ]] && cp "$WORK/report-s0.txt" "$fixtures/report-s0.txt"
		ab_fixtures "$fixtures"
		if [[ -s $WORK/bisect/transcript.txt ]]; then
			cp "$WORK/bisect/transcript.txt" "$fixtures/bisect-transcript.log"
			for f in "$WORK"/bisect/points/*.txt; do
				[[ ! -e $f ]] || cp "$f" "$fixtures/bisect-step-${f##*/}"
			done
		fi
		note "points and the report copied to $fixtures"
	fi
	finish "$t_all"
}

# bisect_case: `git bisect run scripts/bisect-step.sh` over bisect_tree's history, as a user
# runs it: the references are s0 points of both ends, each built in the tree and booted
# twice; every step is a real incremental build of the commit checked out and a boot on the
# instruction clock. Cases: the references, the bisect (git names the tracking change, every
# step's verdict is right: good before it, bad from it on, none skipped).
bisect_case() {
	local dir=$ROOT/bisect bw=$WORK/bisect t0 rc=0 end k c want got log refs=() reasons=()
	mkdir -p "$bw/points"
	t0=$(now)
	if ! bisect_tree; then
		result_fail bisect-history "$WHY"
		return 0
	fi
	timed "the bisect's history (made, or found in the cache)" "$(since "$t0")"
	# The references: the good end first (the objdir is the parent's: little to rebuild).
	for end in good bad; do
		c=BISECT_${end^^}
		if ! git -C "$dir" checkout -q --detach "${!c}" 2>"$WORK/checkout-$end.log"; then
			result_fail bisect-references "git checkout of the $end end failed" "$WORK/checkout-$end.log"
			return 0
		fi
		if ! build bisect "bisect-$end"; then
			result_fail "bisect-references" "the $end end (${!c:0:12}) did not build" "$WORK/build-bisect-$end.log"
			return 0
		fi
		[[ $end == bad ]] || cp "${IMG[bisect]}" "$WORK/good.bzImage"
		for k in 1 2; do
			boot "bisect-$end-$k" bisect && refs+=("--$end" "${POINTS[bisect-$end-$k]}")
		done
	done
	reasons=()
	((${#refs[@]} == 8)) || reasons+=("$((${#refs[@]} / 2)) of 4 reference boots gave a point")
	# Each end counts as the kernels it is made of, both its boots exactly alike: the good
	# end is the parent's image byte for byte (the same source, built reproducibly), and
	# the ends differ by the child's change, as ab measured it, within BUILD_TOLERANCE.
	cmp -s "$WORK/good.bzImage" "${IMG[parent]}" || reasons+=("the good end's image is not the parent's")
	local a b d
	for end in good bad; do
		a=${POINTS[bisect-$end-1]:-} b=${POINTS[bisect-$end-2]:-}
		[[ -n $a && -n $b ]] || continue
		diff -q <(rounds "$a") <(rounds "$b") >/dev/null || reasons+=("the $end end's two boots differ")
	done
	a=${POINTS[bisect-good-1]:-} b=${POINTS[bisect-bad-1]:-}
	if [[ -n $a && -n $b && -n ${POINTS[s0-parent-1]:-} && -n ${POINTS[s0-child-1]:-} ]]; then
		local ends child
		ends=$(awk -v a="$(mean "$a")" -v b="$(mean "$b")" 'BEGIN { printf "%.6f", b - a }')
		child=$(awk -v a="$(mean "${POINTS[s0-parent-1]}")" -v b="$(mean "${POINTS[s0-child-1]}")" \
			'BEGIN { printf "%.6f", b - a }')
		d=$(awk -v a="$ends" -v b="$child" 'BEGIN { d = a - b; printf "%.6f", d < 0 ? -d : d }')
		num "$d" '<=' "$BUILD_TOLERANCE" ||
			reasons+=("the ends differ by $ends instructions per pair, the child by $child (at most $BUILD_TOLERANCE apart)")
		note "bisect: the ends $(mean "$a") and $(mean "$b"): $ends a pair; ab's child $child"
	fi
	judge bisect-references "$WORK/boot-bisect-bad-2.log" "${reasons[@]}"
	((${#refs[@]} == 8)) || return 0

	log=$bw/transcript.txt
	t0=$(now)
	{
		git -C "$dir" bisect start "$BISECT_BAD" "$BISECT_GOOD" &&
			(cd "$dir" && git bisect run "$REPO/scripts/bisect-step.sh" "${refs[@]}" \
				--build "\"$REPO/scripts/build-kernel.sh\" --jobs $JOBS" --image "$OBJ/$IMAGE" \
				--accel icount --gate "$BISECT_GATE" --points "$bw/points" --bin "$BIN" \
				--timeout "$TIMEOUT")
	} >"$log" 2>&1 </dev/null || rc=$?
	timed "git bisect run" "$(since "$t0")"
	git -C "$dir" bisect log >"$bw/bisect.log" 2>&1 || true
	git -C "$dir" bisect reset >/dev/null 2>&1 || true

	reasons=()
	((rc == 0)) || reasons+=("git bisect run exited $rc")
	grep -q "^$BISECT_TRACKING is the first bad commit" "$log" ||
		reasons+=("git did not name the tracking change ${BISECT_TRACKING:0:12}: $(grep -m1 'is the first bad commit' "$log" || echo 'no first bad commit')")
	# Every step's verdict: bad exactly from the tracking change on.
	local steps=0
	while read -r c got; do
		steps=$((steps + 1))
		want=good
		git -C "$dir" merge-base --is-ancestor "$BISECT_TRACKING" "$c" && want=bad
		[[ $got == "$want" ]] || reasons+=("step $steps: $c is $want, the step said $got")
	done < <(sed -nE 's/^bisect-step\.sh: ([0-9a-f]{12}): (good|bad|cannot be judged)[^a-z].*\(exit [0-9]+\).*/\1 \2/p' "$log")
	((steps > 0)) || reasons+=("no step gave a verdict")
	judge bisect-names-the-tracking-change "$log" "${reasons[@]}"
	note "git bisect run: $steps steps, first bad commit ${BISECT_TRACKING:0:12}"
	sed -nE 's/^bisect-step\.sh: ([0-9a-f]{12}): ([a-z]+) \(exit [0-9]+\) after ([0-9]+) s \(build ([0-9]+) s, boot ([0-9]+) s\).*/\1 \2 \3 \4 \5/p' "$log" |
		while read -r c got k b t; do note "  step $c: $got, $k s (build $b s, boot $t s)"; done
}

# ---------------------------------------------------------------------------------------
# Where the cost went: the per-function tables checked (tests/kernel/cost-checks.sh).
# shellcheck source=cost-checks.sh
. "$HERE/cost-checks.sh"
# The boots by ab, and what its tables must say (tests/kernel/ab-checks.sh).
# shellcheck source=ab-checks.sh
. "$HERE/ab-checks.sh"

finish() {
	local b
	for b in "${BOOTS[@]}"; do TIMES+=("boot ${b% *}: ${b##* } s"); done
	TIMES+=("all: $(since "$1") s")
	printf '# time: %s\n' "${TIMES[@]}" >&2
	[[ -n ${keep:-} ]] && note "points and logs kept in $WORK"
	summary
}

main "$@"
