# shellcheck shell=sh disable=SC2154,SC2034
# (SC2154, SC2034: its variables are ab.sh's, and ab.sh's are its; checked together
# through ab.sh.)
# ab-sides.sh: scripts/ab.sh's two sides, sourced by it (POSIX sh; not run on its own):
# their sources checked, their copies in the cache made to agree with what their objects
# were built from, and the steps that build and boot them.
#
# The cache holds a slot per side, CACHE/base and CACHE/head: tree/, the copy last built,
# with build-kernel.sh's objdir inside (kbuild's paths then stay relative, so an objdir
# copied into another copy of the same tree builds there incrementally). A run makes the
# side's new copy beside it (stage/), makes it agree with the tree its objects come from,
# moves the objdir in and puts stage/ in tree/'s place.

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

# ---------------------------------------------------------------------------------------
# The boots' needs, checked before anything is built.

check_boots() {
	_cb_rc=0
	_cb_said=$("$HERE/boot-point.sh" --check --kernel "$SCRATCH/image" -o "$SCRATCH/check" \
		--accel icount --bin "$bin" -- suite ${profiles:+--profiles "$profiles"} "$@" 2>&1) || _cb_rc=$?
	if [ "$_cb_rc" -ne 0 ]; then
		printf '%s\n' "$_cb_said" | grep -v '^boot-point.sh: checked' >&2 || true
		case $_cb_said in *"unknown profile"*)
			say "--profiles: the known profiles: $(known_profiles) (each P also as P:shared where it takes --shared)"
			;;
		esac
		[ "$_cb_rc" = 2 ] && exit "$USAGE"
		say "the boots cannot be made here (boot-point.sh --check exit $_cb_rc)"
		exit "$CANNOT"
	fi
	[ "$cost" = 1 ] || return 0
	# The counter: built, and QEMU asked whether it takes it (with a made-up map: the
	# kernels' are not built yet).
	printf 'ffffffff81000000 T _stext\n' >"$SCRATCH/probe.map"
	if ! _cb_said=$("$HERE/cost.sh" plugin --map "$SCRATCH/probe.map" --out "$SCRATCH/probe.counts" 2>&1); then
		printf '%s\n' "$_cb_said" >&2
		say "the cost counter cannot run here: --no-cost measures without it (no locked counts, no functions)"
		exit "$CANNOT"
	fi
}

# known_profiles: the profiles of the binary's --help, by short name.
known_profiles() {
	"$bin" --help | awk '/^profiles \(/ { on = 1; next } on && /^$/ { exit }
		on && /^  [a-z0-9]/ { printf "%s%s", sep, $1; sep = " " } END { print "" }'
}

# ---------------------------------------------------------------------------------------
# The slots.

# slot_recover SIDE: a swap that was cut short (the objdir moved into stage/, which never
# took tree/'s place) finished; what else was left half-made removed.
slot_recover() {
	_sr=$cache/$1
	if [ -d "$_sr/stage/$OBJ" ] && [ ! -d "$_sr/tree/$OBJ" ]; then
		rm -rf "$_sr/tree"
		mv "$_sr/stage" "$_sr/tree"
	fi
	rm -rf "$_sr/stage" "$_sr/old"
}

# swap SIDE: stage/ becomes the slot's tree/.
swap() {
	[ ! -d "$cache/$1/tree" ] || mv "$cache/$1/tree" "$cache/$1/old"
	mv "$cache/$1/stage" "$cache/$1/tree"
	rm -rf "$cache/$1/old"
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
	revisions:*) at_revision "$1" "$2" "$_ms" ;;
	patches:head) with_patches "$_ms" ;;
	esac
}

# at_revision SIDE TREE STAGE: STAGE (a copy of TREE's work tree) made the side's commit:
# what git ignores removed (an in-tree build's files), then the difference between the
# commit and the work tree applied in reverse.
at_revision() {
	eval "_ar_sha=\$${1}_sha"
	# shellcheck disable=SC2154 # set by eval
	(cd "$2" && git ls-files -z -o -i --exclude-standard --directory) |
		(cd "$3" && xargs -0 -r rm -rf --)
	# The user's own settings must not change the difference: no external diff or
	# textconv, no colour, no renames (a deletion and an addition), every path from the top.
	# A file's ctime is not taken as a change: hard links to it (the copies) change it, and
	# git would read every file again (it may not write the index it refreshed).
	_ar_opts="--no-ext-diff --no-textconv --no-color --no-renames --no-relative"
	# shellcheck disable=SC2086 # the options, one word each
	git -C "$2" -c core.trustctime=false diff $_ar_opts --name-only "$_ar_sha" -- \
		>"$SCRATCH/$1.touched" || cannot "git diff $_ar_sha failed in $2"
	# shellcheck disable=SC2086
	git -C "$2" -c core.trustctime=false diff $_ar_opts --binary --src-prefix=a/ --dst-prefix=b/ \
		"$_ar_sha" -- >"$SCRATCH/$1.diff" || cannot "git diff $_ar_sha failed in $2"
	[ -s "$SCRATCH/$1.diff" ] || return 0
	(cd "$3" && GIT_CEILING_DIRECTORIES=$(dirname "$3") git apply -R --whitespace=nowarn \
		"$SCRATCH/$1.diff") >"$SCRATCH/$1.apply" 2>&1 ||
		cannot "the difference between $_ar_sha and the work tree of $2 does not apply to its copy: $(head -n 1 "$SCRATCH/$1.apply")"
}

# with_patches STAGE: the patches applied to STAGE in order, each checked first (patch
# --dry-run): one that does not apply is refused naming it, the file and its first hunk
# that failed. No fuzz: a hunk applies where its context is, or not at all.
with_patches() {
	printf '%s' "$patches" >"$SCRATCH/patches"
	while IFS= read -r _wp; do
		if ! _wp_said=$(patch -p1 --forward --batch --fuzz=0 -d "$1" -i "$_wp" --dry-run </dev/null 2>&1); then
			_wp_where=$(printf '%s\n' "$_wp_said" | awk '/^checking file / { f = substr($0, 15) }
				/^Hunk #[0-9]+ FAILED at / { print f ", hunk #" substr($2, 2) " (at line " $5 + 0 ")"; exit }')
			[ -n "$_wp_where" ] || _wp_where=$(printf '%s\n' "$_wp_said" | grep -v '^checking file ' | head -n 1)
			refuse "--patch $_wp does not apply to $tree: $_wp_where"
		fi
		printf '%s\n' "$_wp_said" | sed -n 's/^checking file //p' >>"$SCRATCH/head.touched"
		patch -p1 --forward --batch --fuzz=0 -d "$1" -i "$_wp" --no-backup-if-mismatch -s \
			</dev/null >"$SCRATCH/patch.out" 2>&1 ||
			cannot "--patch $_wp: patch failed after its dry run: $(head -n 1 "$SCRATCH/patch.out")"
	done <"$SCRATCH/patches"
}

# reconcile SIDE REF: the slot's stage/ made to agree with REF, the tree the objects it is
# to get were built from. A file the side's changes wrote with REF's content gets REF's
# time (nothing to rebuild); every file whose content is not REF's, or that REF lacks, is
# written anew, newer than every object: it may be a link to one of the user's, or a file
# a patch wrote, older than the objects made from another content (the base's, built
# after the head's patch was applied).
reconcile() {
	_rc_s=$cache/$1/stage
	while IFS= read -r _rc_f; do
		if [ -f "$_rc_s/$_rc_f" ] && [ -f "$2/$_rc_f" ] && cmp -s "$_rc_s/$_rc_f" "$2/$_rc_f"; then
			touch -r "$2/$_rc_f" "$_rc_s/$_rc_f"
		fi
	done <"$SCRATCH/$1.touched"
	_rc_st=0
	LC_ALL=C diff -rq --no-dereference -x "$OBJ" -x .git "$_rc_s" "$2" >"$SCRATCH/$1.differ" 2>&1 ||
		_rc_st=$?
	[ "$_rc_st" -le 1 ] || cannot "diff of $_rc_s and $2 failed: $(grep -v '^Files \|^Only in \|^File ' "$SCRATCH/$1.differ" | head -n 1)"
	LC_ALL=C awk -v s="$_rc_s/" '
		function emit(p) { print p }
		/^Files / && substr($0, 7, length(s)) == s { p = substr($0, 7 + length(s)); sub(/ and .*/, "", p); emit(p) }
		/^File / && substr($0, 6, length(s)) == s { p = substr($0, 6 + length(s)); sub(/ is a .*/, "", p); emit(p) }
		/^Only in / && (substr($0, 9, length(s)) == s || substr($0, 9, length(s) - 1) ":" == substr(s, 1, length(s) - 1) ":") {
			d = substr($0, 9); i = index(d, ": "); p = substr(d, 1, i - 1) "/" substr(d, i + 2)
			emit(substr(p, length(s) + 1)) }
	' "$SCRATCH/$1.differ" >"$SCRATCH/$1.fresh"
	while IFS= read -r _rc_f; do
		if [ -d "$_rc_s/$_rc_f" ] && [ ! -L "$_rc_s/$_rc_f" ]; then
			find "$_rc_s/$_rc_f" -type f
		elif [ -f "$_rc_s/$_rc_f" ] && [ ! -L "$_rc_s/$_rc_f" ]; then
			printf '%s\n' "$_rc_s/$_rc_f"
		fi
	done <"$SCRATCH/$1.fresh" >"$SCRATCH/$1.files"
	while IFS= read -r _rc_f; do
		{ cp -- "$_rc_f" "$_rc_f.ab-new" && mv -f -- "$_rc_f.ab-new" "$_rc_f"; } ||
			cannot "could not write $_rc_f anew"
	done <"$SCRATCH/$1.files"
}

# prepare SIDE: step 1 or 2: the slot's tree made the side's, its objects from the slot's
# last build, else from the source tree's own objdir, else (head) from the base's once it
# is built (SEED_head=base), else none (a build from nothing).
prepare() {
	eval "_pr_from=\$${1}_from"
	# shellcheck disable=SC2154 # set by eval
	make_stage "$1" "$_pr_from"
	_pr_slot=$cache/$1 _pr_copied=0
	if [ -d "$_pr_slot/tree/$OBJ" ]; then
		reconcile "$1" "$_pr_slot/tree"
		mv "$_pr_slot/tree/$OBJ" "$_pr_slot/stage/$OBJ"
		eval "SEED_$1=slot"
	elif [ -d "$_pr_from/$OBJ" ]; then
		reconcile "$1" "$_pr_from"
		cp -a "$_pr_from/$OBJ" "$_pr_slot/stage/$OBJ" || cannot "could not copy $_pr_from/$OBJ"
		eval "SEED_$1=source"
		_pr_copied=1
	elif [ "$1" = head ]; then
		eval "SEED_$1=base"
	else
		eval "SEED_$1=none"
	fi
	swap "$1"
	# A copy names itself (common.sh): its host tools are not rebuilt for the new place.
	[ "$_pr_copied" != 1 ] || objdir_moved "$_pr_from/$OBJ" "$_pr_slot/tree/$OBJ" ||
		cannot "could not rename the tools of $_pr_slot/tree/$OBJ"
}

# seed_from_base: the head's tree made to agree with the base's, and the base's objects
# copied in (after the base's build: its first build then rebuilds only what differs).
seed_from_base() {
	mv "$cache/head/tree" "$cache/head/stage"
	reconcile head "$cache/base/tree"
	cp -a "$cache/base/tree/$OBJ" "$cache/head/stage/$OBJ" || cannot "could not copy the base's objdir"
	swap head
	objdir_moved "$cache/base/tree/$OBJ" "$cache/head/tree/$OBJ" || cannot "could not rename the head's tools"
}

# cannot WHY: the run cannot go on (exit 125), what it made kept (fail_run).
cannot() {
	say "$*"
	fail_run "$*"
}

# ---------------------------------------------------------------------------------------
# The steps: prepare both sides, then build and boot each as soon as what it needs is
# ready, several at once, each a child of the script (common.sh's start_child).

STEPS=9
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
# step_begin K NAME, step_end K [NOTE]: the step's lines, its time.
step_begin() {
	eval "t_step$1=\$(now) name_step$1=\$2"
	say "[$1/$STEPS] $2"
}
step_end() {
	eval "_se_name=\$name_step$1 _se_t=\$t_step$1"
	say "[$1/$STEPS] $_se_name: $(secs "$_se_t") s${2:+, $2}"
}

# The background steps: 3 build base, 4 build head, 5 boot base, 6 boot head, 7 boot base
# again; st_K: waiting, running or ended; pid_K their child.
start_build() {
	step_begin "$1" "build $2"
	start_child "$HERE/build-kernel.sh" --src "$cache/$2/tree" --jobs "$jobs" >"$work/build-$2.log" 2>&1
	eval "st_$1=running pid_$1=\$CHILD"
}
start_boot() {
	step_begin "$1" "boot $2"
	_sb_k=$1 _sb_obj=$cache/$3/tree/$OBJ _sb_dir=$4 _sb_ifs=$IFS
	IFS=$nl
	set -f
	# shellcheck disable=SC2086 # the run options, one a line
	set -- $run_options
	IFS=$_sb_ifs
	set +f
	start_child "$HERE/boot-point.sh" --kernel "$_sb_obj/$IMAGE" -o "$work/$_sb_dir" --accel icount \
		${cost_map_flag:+--cost "$_sb_obj/System.map"} --bin "$bin" ${timeout_s:+--timeout "$timeout_s"} \
		-- suite ${profiles:+--profiles "$profiles"} "$@" >"$work/boot-$_sb_dir.log" 2>&1
	eval "st_$_sb_k=running pid_$_sb_k=\$CHILD"
}

# ended K: step K's child has ended: its status judged (a failure ends the run).
ended() {
	eval "_en_pid=\$pid_$1"
	_en_rc=0
	wait_child "$_en_pid" || _en_rc=$?
	eval "st_$1=ended"
	case $1 in
	3 | 4)
		if [ "$_en_rc" -ne 0 ]; then
			eval "_en_what=\$name_step$1"
			say "[$1/$STEPS] $_en_what failed (exit $_en_rc) after $(eval "secs \$t_step$1") s; the last lines of $out/build-${_en_what#build }.log:"
			grep -v '^$' "$work/build-${_en_what#build }.log" | tail -n 12 | sed 's/^/  | /' >&2
			fail_run "$_en_what failed: $out/build-${_en_what#build }.log"
		fi
		step_end "$1"
		;;
	*)
		eval "_en_what=\$name_step$1"
		_en_log=$out/boot-$(boot_dir "$1").log
		case $_en_rc in
		0 | 1 | 4) step_end "$1" "$(tail -n 1 "$work/boot-$(boot_dir "$1").log" | sed 's/^boot-point.sh: [^:]*: //')" ;;
		124)
			_en_limit="--timeout $timeout_s"
			[ -n "$timeout_s" ] || _en_limit="boot-point.sh's default timeout"
			say "[$1/$STEPS] $_en_what timed out ($_en_limit); the last lines of $_en_log:"
			tail -n 12 "$work/boot-$(boot_dir "$1").log" | sed 's/^/  | /' >&2
			fail_run "$_en_what timed out: $_en_log"
			;;
		*)
			say "[$1/$STEPS] $_en_what failed (boot-point.sh exit $_en_rc); the last lines of $_en_log:"
			tail -n 12 "$work/boot-$(boot_dir "$1").log" | sed 's/^/  | /' >&2
			fail_run "$_en_what failed: $_en_log"
			;;
		esac
		;;
	esac
}
boot_dir() {
	case $1 in 5) echo base-1 ;; 6) echo head ;; 7) echo base-2 ;; esac
}

# heartbeat: one line of what runs, how long, and the make target being built.
heartbeat() {
	_hb=""
	for _hb_k in 3 4 5 6 7; do
		eval "[ \"\$st_$_hb_k\" = running ]" || continue
		eval "_hb_name=\$name_step$_hb_k _hb_t=\$(secs \$t_step$_hb_k)"
		_hb_what=""
		# A build's last make target, or what build-kernel.sh says it does (configuring).
		case $_hb_k in 3 | 4)
			_hb_what=$(sed -n 's/^  \([A-Z][A-Z0-9_]*\)  *\([^ ].*\)$/\1 \2/p; s/^build-kernel.sh: \([a-z]*\) .*/\1/p' \
				"$work/build-${_hb_name#build }.log" | tail -n 1)
			;;
		esac
		_hb="$_hb${_hb:+; }$_hb_name ${_hb_t} s${_hb_what:+ ($_hb_what)}"
	done
	[ -z "$_hb" ] || say "... $_hb"
}

run_steps() {
	run_options=""
	for _rs_o; do run_options="$run_options$_rs_o$nl"; done
	cost_map_flag=""
	[ "$cost" = 0 ] || cost_map_flag=1
	step_begin 1 "prepare base ($(describe_side base))"
	prepare base
	step_end 1 "objects: $(describe_seed "$SEED_base")"
	step_begin 2 "prepare head ($(describe_side head))"
	prepare head
	step_end 2 "objects: $(describe_seed "$SEED_head")"
	st_3=waiting st_4=waiting st_5=waiting st_6=waiting st_7=waiting beat=$(date +%s)
	while :; do
		[ "$st_3" != waiting ] || start_build 3 base
		if [ "$st_4" = waiting ] && { [ "$SEED_head" != base ] || [ "$st_3" = ended ]; }; then
			[ "$SEED_head" != base ] || seed_from_base
			start_build 4 head
		fi
		# Each boot is a boot of its own whenever it starts: boot-point.sh gives every
		# one an identity (URING_REPRO_BOOT_ID), so one image booted twice in one second
		# is two boots to compare.
		if [ "$st_5" = waiting ] && [ "$st_3" = ended ]; then
			start_boot 5 base base base-1
		fi
		if [ "$st_6" = waiting ] && [ "$st_4" = ended ]; then
			start_boot 6 head head head
		fi
		if [ "$st_7" = waiting ] && [ "$st_5" = ended ]; then
			start_boot 7 "base again" base base-2
		fi
		for _rs_k in 3 4 5 6 7; do
			eval "[ \"\$st_$_rs_k\" = running ]" || continue
			eval "_rs_pid=\$pid_$_rs_k"
			child_running "$_rs_pid" || ended "$_rs_k"
		done
		[ "$st_7" != ended ] || [ "$st_6" != ended ] || break
		if [ $(($(date +%s) - beat)) -ge "$HEARTBEAT" ]; then
			heartbeat
			beat=$(date +%s)
		fi
		sleep 1
	done
}

describe_side() {
	case $form:$1 in
	revisions:base) printf '%s at %.12s' "$tree" "$base_sha" ;;
	revisions:head) printf '%s at %.12s' "$tree" "$head_sha" ;;
	patches:base) printf '%s as it is' "$tree" ;;
	patches:head) printf '%s with %s' "$tree" "$(printf '%s' "$patches" | sed 's|.*/||' | paste -sd ' ')" ;;
	trees:*) eval "printf '%s as it is' \"\$${1}_from\"" ;;
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
