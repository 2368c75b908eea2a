# shellcheck shell=bash disable=SC2154,SC2034
# (its variables are run.sh's, and run.sh's are its: checked together through run.sh.)
# Sourced by tests/kernel/run.sh (bash; not run on its own): its boots, made by
# scripts/ab.sh, and what its tables must say.
#
# Every profile is measured by ab, each kernel booted once for all of them (a suite), every
# run in one cache (ROOT/ab), so a kernel booted once is never booted again for another
# run: its points are reused (the same image, binary, run options, CPUs and QEMU).
#   ab-fixes   the fix series, patch by patch (--each on the parent): 079afb081c42's
#              forward-port (step 1, p1), the first follow-up (p2), the second (p3):
#     p1: the futex profiles move; another row moves only through the helper the change
#         makes an ordinary function (io_req_track_inflight, no longer inlined where a
#         request's file is a ring: pollwake's MSG_RING, +5 a completion), and n0, the NOP
#         control, not;
#     p2: s0 and its shared variant lower, by the WAKE's tracking (two locked instructions
#         a pair: one atomic_inc, one atomic_dec); no row but a futex one moves;
#     p3: shared s0 lowers, by the WAIT's tracking (two locked instructions a pair);
#         private s0 keeps its tracking: no locked instruction moves there, and the only
#         function that moves is the FLAGS_SHARED test fix 2 adds in io_futex_wait (+2, its
#         test and its branch); no row but a futex one moves;
#     and the series' total is its steps' sum.
#   ab-recheck the same series again with --recheck: nothing built, every point reused and
#              booted again, the same line for line (the sandwich's second boots come from
#              here: parent, child, child, parent);
#   ab-poll    the parent against the poll change: the parent's points reused; pollwake
#              moves (idle, waiter), no other row;
#   ab-kellermann  Max Kellermann's io-wq series, patch by patch (ab_kellermann, below);
#   ab-iowq    "Avoid unnecessary io-wq worker creation", patch by patch (ab_iowq, below);
#   smp        the parent booted twice at once with two vCPUs: the same points (smp_exact);
#   ab-series  the harmless stretch of kernel/bisect/series, commit by commit (--series from
#              the parent's commit to the second after it, in the bisect's tree): its
#              first step is the parent's image, byte for byte (its points reused);
#              nothing moves.
# A cold cache starts from the parent tree's objects, and each step of a series from the
# one before's.
# The points run.sh's checks read are taken from ab's boots, under their names (POINTS,
# $WORK/points).

# The suite's run options, ab's (its default, named: the points are compared with each
# other).
readonly AB_RUN=(--cycles 64 --rounds 5 --warmups 1)

# count_lines RE FILE: how many lines of FILE match RE (0 too: grep -c's status 1 for no
# line is no error here).
count_lines() { grep -c -- "$1" "$2" || true; }

# ab NAME ARGS...: scripts/ab.sh NAME's run, its table in $WORK/ab-NAME.txt, its progress in
# ab-NAME.log, its directory $WORK/ab-NAME; AB_RC its exit code.
AB_RC=0
ab() {
	local name=$1 t0 try
	shift
	t0=$(now)
	for try in 1 2; do
		AB_RC=0
		"$REPO/scripts/ab.sh" "$@" -o "$WORK/ab-$name" --cache "$ROOT/ab" --jobs "$JOBS" \
			--bin "$BIN" --timeout "$TIMEOUT" -- "${AB_RUN[@]}" >"$WORK/ab-$name.txt" \
			2>"$WORK/ab-$name.log" || AB_RC=$?
		# A cache an older ab.sh left (of another layout) is refused, named: it goes, and
		# the run starts again from the trees' objects.
		((AB_RC == 2 && try == 1)) && grep -q 'holds copies an older ab.sh made' "$WORK/ab-$name.log" ||
			break
		note "ab $name: the cache of an older ab.sh removed ($ROOT/ab)"
		rm -rf "$ROOT/ab"
	done
	timed "ab $name" "$(since "$t0")"
	note "ab $name: exit $AB_RC, $(t_rows "$name" moved | wc -l) row(s) moved, $(count_lines '^ab.sh: \[[^]]*\] build: ' "$WORK/ab-$name.log") build(s), $(count_lines '^ab.sh: \[[^]]*\] boot[^:]*: ' "$WORK/ab-$name.log") boot(s)"
}

# A table, T: NAME (a run of two kernels: its ab.tsv) or NAME:K (step K of a series: its
# rows in series.tsv). Its rows, fields and compare texts by their columns' names.

# t_rows T [VERDICT]: T's rows (all, or those with VERDICT), one a line.
t_rows() {
	local name=${1%%:*} step="" file
	[[ $1 != *:* ]] || step=${1#*:}
	file=$WORK/ab-$name/ab.tsv
	[[ -z $step && -s $file ]] || file=$WORK/ab-$name/series.tsv
	awk -F'\t' -v s="$step" -v v="${2:-}" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		(s == "" || $c["step"] == s) && (v == "" || $c["verdict"] == v) { print $c["profile"] }' \
		"$file" 2>/dev/null
}

# t_field T ROW COLUMN: COLUMN of ROW in T.
t_field() {
	local name=${1%%:*} step="" file
	[[ $1 != *:* ]] || step=${1#*:}
	file=$WORK/ab-$name/ab.tsv
	[[ -z $step && -s $file ]] || file=$WORK/ab-$name/series.tsv
	awk -F'\t' -v s="$step" -v r="$2" -v f="$3" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		(s == "" || $c["step"] == s) && $c["profile"] == r { print $c[f]; exit }' "$file" 2>/dev/null
}

# t_compare T ROW: compare's text of ROW in T (a series' step K: compare/pK/).
t_compare() {
	local name=${1%%:*} dir=compare
	[[ $1 != *:* ]] || dir=compare/p${1#*:}
	printf '%s\n' "$WORK/ab-$name/$dir/${2//[:\/]/-}.txt"
}

# ab_table_ok NAME WANT: the run gave a table and exit WANT (case ab-NAME).
ab_table_ok() {
	local reasons=()
	((AB_RC == $2)) || reasons+=("exit $AB_RC, not $2")
	[[ -s $WORK/ab-$1/ab.tsv || -s $WORK/ab-$1/series.tsv ]] || reasons+=("no ab.tsv or series.tsv")
	judge "ab-$1" "$WORK/ab-$1.log" "${reasons[@]}"
	[[ -s $WORK/ab-$1/ab.tsv || -s $WORK/ab-$1/series.tsv ]]
}

# keep KEY NAME BOOT ITEM: ITEM's point of ab NAME's boot BOOT as POINTS[KEY] (in
# $WORK/points, where run.sh's checks read them), its log ab NAME's.
declare -A POINT_LOG=()
keep() {
	[[ -s $WORK/ab-$2/$3/$4.txt ]] || return 0
	cp "$WORK/ab-$2/$3/$4.txt" "$WORK/points/$1.txt"
	POINTS[$1]=$WORK/points/$1.txt POINT_LOG[$1]=$WORK/ab-$2.log
}

# futex_row T ROW: ROW is about futexes (its workload's words, the about column).
futex_row() { [[ $(t_field "$1" "$2" about) == *[Ff][Uu][Tt][Ee][Xx]* ]]; }

ab_fixes() {
	local row reasons=() futex=() t
	ab fixes --tree "$ROOT/parent" --patch "$CHILD_PATCH" --patch "$FIX1_PATCH" \
		--patch "$FIX2_PATCH" --each
	ab_table_ok fixes 1 || return 0
	keep s0-parent-1 fixes base s0
	keep s0-child-1 fixes p1 s0
	keep s0-shared-parent fixes base s0-shared
	keep s0-shared-child fixes p1 s0-shared
	keep pollwake-child fixes p1 pollwake
	keep s0-fix1 fixes p2 s0
	keep s0-shared-fix1 fixes p2 s0-shared
	keep s0-fix2 fixes p3 s0
	keep s0-shared-fix2 fixes p3 s0-shared
	for row in n0 v0 c0; do
		keep "$row-parent" fixes base "$row"
		keep "$row-child" fixes p1 "$row"
	done
	# Step 1: every row about futexes moved.
	t=fixes:1
	while IFS= read -r row; do
		futex_row "$t" "$row" || continue
		futex+=("$row")
		[[ $(t_field "$t" "$row" verdict) == moved ]] || reasons+=("$row did not move")
	done < <(t_rows "$t")
	((${#futex[@]} > 0)) || reasons+=("no futex profile in the table")
	judge ab-child-futex-profiles-move "$WORK/ab-fixes.txt" "${reasons[@]}"
	# No other row moved but through the helper the change makes an ordinary function.
	reasons=()
	while read -r row; do
		[[ " ${futex[*]} " != *" $row "* ]] || continue
		grep -Eq '^ *- +\+[0-9.]+ +([-+]?[0-9.]+ +)?io_req_track_inflight \(p1 only\)$' "$(t_compare "$t" "$row")" ||
			by_chance "$t" "$row" || reasons+=("$row moved, and not through io_req_track_inflight")
	done < <(t_rows "$t" moved)
	[[ $(t_rows "$t" unmoved) == *n0* ]] || reasons+=("n0, the NOP control, moved or is missing")
	judge ab-child-no-other-profile-moves "$WORK/ab-fixes.txt" "${reasons[@]}"
	# Step 2, fix 1: the WAKE's tracking.
	reasons=()
	for row in s0 s0:shared; do lowered fixes:2 "$row" "$LOCKED_ONE_REQUEST"; done
	judge ab-fix1-lowers-s0 "$WORK/ab-fixes.txt" "${reasons[@]}"
	futex_rows_only fixes:2 fix1
	# Step 3, fix 2: the shared WAIT's tracking.
	reasons=()
	lowered fixes:3 s0:shared "$LOCKED_ONE_REQUEST"
	judge ab-fix2-lowers-shared-s0 "$WORK/ab-fixes.txt" "${reasons[@]}"
	# Private s0: the same requests tracked; fix 2's test is all that moves.
	reasons=()
	locked_by fixes:3 s0 0
	local moved
	moved=$(cost_listed "$(t_compare fixes:3 s0)" | tr '\t\n' '  ')
	[[ $moved == 'io_futex_wait +2.000 ' ]] ||
		reasons+=("s0's functions that moved are not io_futex_wait's +2.000 alone: ${moved:-none}")
	judge ab-fix2-keeps-private-s0-tracking "$WORK/ab-fixes.txt" "${reasons[@]}"
	futex_rows_only fixes:3 fix2
	# The series as a whole: its total is its steps' changes, added (each step's change is
	# the difference of two points' means, and the total the first's and the last's).
	reasons=()
	for row in s0 s0:shared n0; do
		local sum total
		sum=$(awk -F'\t' -v r="$row" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
			$c["profile"] == r { s += $c["delta"] } END { printf "%.6f", s }' "$WORK/ab-fixes/series.tsv")
		total=$(awk -F'\t' -v r="$row" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
			$c["profile"] == r && $c["step"] == 1 { b = $c["base"] }
			$c["profile"] == r && $c["step"] == 3 { h = $c["head"] } END { printf "%.6f", h - b }' \
			"$WORK/ab-fixes/series.tsv")
		cmp_within "$sum" "$total" 0.00001 ||
			reasons+=("$row: the steps add up to $sum, the series moved it $total")
	done
	judge ab-fixes-steps-add-up "$WORK/ab-fixes/series.tsv" "${reasons[@]}"
}

# ab_recheck: the fix series once more with --recheck: nothing to build, every point reused
# and booted again, and the same line for line; the second boots are the sandwich's.
ab_recheck() {
	local reasons=() k
	ab recheck --tree "$ROOT/parent" --patch "$CHILD_PATCH" --patch "$FIX1_PATCH" \
		--patch "$FIX2_PATCH" --each --recheck
	ab_table_ok recheck 1 || return 0
	! grep -q '^ab.sh: \[[^]]*\] build: ' "$WORK/ab-recheck.log" || reasons+=("it built again")
	for k in base p1 p2 p3; do
		grep -q "^ab.sh: \[[0-9]*/3 $k\] its points reused: booted " "$WORK/ab-recheck.log" ||
			reasons+=("$k's points were not reused")
	done
	# Said in each table of its step's (the base's and the last's in one, the others' in two),
	# its lines wrapped.
	local said
	said=$(tr '\n' ' ' <"$WORK/ab-recheck.txt" | tr -s ' ' | grep -o '[a-z0-9]*: booted again: its [0-9]* files the same, line for line' | cut -d: -f1 | sort | uniq -c | awk '{ printf "%s %s ", $2, $1 }')
	[[ $said == "base 1 p1 2 p2 2 p3 1 " ]] ||
		reasons+=("not every step's boots said the same, where each table says it of its steps: ${said:-none}")
	judge ab-recheck-reuses-and-proves-every-point "$WORK/ab-recheck.log" "${reasons[@]}"
	keep s0-parent-2 recheck base-recheck s0
	keep s0-child-2 recheck p1-recheck s0
}

ab_poll() {
	local row reasons=()
	ab poll --tree "$ROOT/parent" --patch "$POLL_PATCH"
	ab_table_ok poll 1 || return 0
	keep pollwake-parent poll base pollwake
	keep pollwake-poll poll head pollwake
	grep -q '^ab.sh: \[base\] its points reused: booted ' "$WORK/ab-poll.log" ||
		reasons+=("the parent was booted again")
	[[ $(grep -c '^ab.sh: \[[^]]*\] boot: ' "$WORK/ab-poll.log") == 1 ]] ||
		reasons+=("not one boot (the poll kernel's)")
	judge ab-poll-boots-the-poll-kernel-alone "$WORK/ab-poll.log" "${reasons[@]}"
	reasons=()
	for row in pollwake/idle pollwake/waiter; do
		[[ $(t_rows poll moved) == *"$row"* ]] || reasons+=("$row did not move")
	done
	judge ab-poll-pollwake-moves "$WORK/ab-poll.txt" "${reasons[@]}"
	reasons=()
	while read -r row; do
		[[ $row == pollwake/* ]] || reasons+=("$row moved")
	done < <(t_rows poll moved)
	judge ab-poll-no-other-profile-moves "$WORK/ab-poll.txt" "${reasons[@]}"
	# The poll kernel's image, where lost-wakeup.sh looks for it by default (layout.sh).
	mkdir -p "$ROOT/poll/$OBJ/$(dirname "$IMAGE")"
	cp "$ROOT/ab/slot-1/tree/$OBJ/$IMAGE" "$ROOT/poll/$OBJ/$IMAGE.new" &&
		mv -f "$ROOT/poll/$OBJ/$IMAGE.new" "$ROOT/poll/$OBJ/$IMAGE"
}

# What a harmless change can move a row by through the timer tick alone: another image puts
# the ticks elsewhere in the rounds, and a row whose rounds meet them moves by their work,
# spread over hundreds of functions none of which moves by a tenth (r0 -1.316 at this
# series' first step in one run, +1.268 back at its second, its interval round by round
# just clear of 0; a0 -1.812 at the io-wq series' second, not clear). ab's gate (0.5) calls
# such a row moved now and then: a harmless stretch may show it, never more, and never an
# event.
readonly TICK_REACH=2.0 # instructions per pair
# pollwake's waiter mode counts its thread's wake-ups, which another image changes by tens
# of a round (the child's boot: 29 more of 2,500): its row moves between harmless images by
# up to a dozen a completion (-12.1 to +11.7 intervals in a harmless stretch; +10.4 at
# Kellermann's 7, which touches nothing of it; once called moved at fix2).
readonly WAITER_REACH=15 # instructions per completion
# by_chance T ROW: ROW of T moved by no more than what another image alone moves it.
by_chance() {
	local reach=$TICK_REACH
	[[ $2 != pollwake/waiter ]] || reach=$WAITER_REACH
	cmp_within "$(t_field "$1" "$2" delta)" 0 "$reach"
}

# futex_rows_only T NAME: the case ab-NAME-no-other-profile-moves: every row of T that moved
# is about futexes (its series' about= words), or moved by chance (by_chance).
futex_rows_only() {
	local row reasons=()
	while read -r row; do
		futex_row "$1" "$row" || by_chance "$1" "$row" ||
			reasons+=("$row moved by $(t_field "$1" "$row" delta)")
	done < <(t_rows "$1" moved)
	judge "ab-$2-no-other-profile-moves" "$WORK/ab-fixes.txt" "${reasons[@]}"
}

# lowered T ROW LOCKED: the reasons ROW of T did not move down, with its locked instructions
# per pair changed by exactly LOCKED, appended to the caller's reasons.
lowered() {
	local delta
	delta=$(t_field "$1" "$2" delta)
	[[ $(t_field "$1" "$2" verdict) == moved ]] || reasons+=("$2 did not move")
	[[ -n $delta ]] && num "$delta" '<' 0 || reasons+=("$2 changed by ${delta:-nothing}, not down")
	locked_by "$1" "$2" "$3"
}

# locked_by T ROW LOCKED: the reasons ROW's locked instructions per pair did not change by
# LOCKED, appended to the caller's reasons: the functions its cost table lists as moved,
# together, by exactly that (to the table's third decimal), and the kernel's, all functions
# (locked_delta), within LOCKED_TICK of it.
locked_by() {
	local d listed
	listed=$(awk '/ the [0-9]+ listed$/ { print $3; exit }' "$(t_compare "$1" "$2")")
	[[ $3 == 0 && -z $listed ]] || num "${listed:-x}" '==' "$3" ||
		reasons+=("$2's listed functions' locked instructions changed by ${listed:-nothing}, not $3")
	d=$(t_field "$1" "$2" locked_delta)
	[[ $d != NA && -n $d ]] && awk -v d="$d" -v w="$3" -v e="$LOCKED_TICK" \
		'BEGIN { d -= w; exit !(d <= e && d >= -e) }' ||
		reasons+=("$2's kernel locked instructions changed by ${d:-nothing}, not $3 within $LOCKED_TICK")
}

# A timer interrupt that falls into the spans brings its own locked instructions (about 20;
# 0.002 a pair of ab's 10,240): the kernel's total may differ from the functions' by that.
readonly LOCKED_TICK=0.01

# The locked instructions per pair a step of the fix series removes, from the source: a
# tracked request is one atomic_inc() of tctx->inflight_tracked when marked and one
# atomic_dec() when freed, each a LOCK-prefixed instruction on x86. Fix 1 stops tracking
# the WAKE (every row), fix 2 the shared WAIT (the shared variant's rows).
readonly LOCKED_ONE_REQUEST=-2

# ab_series: the bisect's history from its first commit to the second after it (two
# harmless changes), commit by commit (ab --series): nothing moves, and the first commit,
# the parent's image byte for byte, reuses the parent's points. (Two, not all three before
# the tracking change: each step is a build and a boot, and the form is the same.)
ab_series() {
	local before reasons=() k row
	before=$(git -C "$ROOT/bisect" rev-parse "$BISECT_TRACKING~2")
	ab series --tree "$ROOT/bisect" --series "$BISECT_GOOD..$before"
	((AB_RC != 1)) || AB_RC=0 # a tick's move is judged below, row by row
	ab_table_ok series 0 || return 0
	for k in 1 2; do
		for row in $(t_rows "series:$k" moved); do
			by_chance "series:$k" "$row" ||
				reasons+=("step $k moved $row by $(t_field "series:$k" "$row" delta)")
		done
		for row in $(t_rows "series:$k"); do
			[[ $(t_field "series:$k" "$row" events_moved) == - ]] ||
				reasons+=("step $k moved $row's events: $(t_field "series:$k" "$row" events_moved)")
			case $(t_field "series:$k" "$row" verdict) in
			moved | unmoved) ;;
			*) reasons+=("step $k: $row $(t_field "series:$k" "$row" verdict)") ;;
			esac
		done
	done
	judge ab-series-nothing-moves "$WORK/ab-series.txt" "${reasons[@]}"
	reasons=()
	grep -q '^ab.sh: \[0/[0-9]* base\] its points reused: booted ' "$WORK/ab-series.log" ||
		reasons+=("the bisect's first commit, the parent's image, was booted again")
	judge ab-series-reuses-the-parents-points "$WORK/ab-series.log" "${reasons[@]}"
}

# series_patches FILE: PATCHES, ab's --patch options for a series file of kernel/ (a patch
# a line, a path under kernel/, a tab, its subject; # a comment).
series_patches() {
	local f subj
	PATCHES=()
	while IFS=$'\t' read -r f subj; do
		case $f in '#'* | '') continue ;; esac
		PATCHES+=(--patch "$REPO/kernel/$f")
	done <"$1"
}

# ab_iowq: the series "Avoid unnecessary io-wq worker creation" (kernel/io-wq-creation/series:
# its three patches written for 6.12, the second the commit the kernel test robot reported),
# patch by patch on the parent, one vCPU (docs/io-wq.md). What its source makes certain: 1
# moves a helper without changing it, so its image is the parent's and its points are the
# parent's, reused: no row and no event moves; 2 skips the run-queue check and its acct lock
# when a worker with no work in hand goes to sleep, which b0's worker does once a SPLICE: b0
# lower, by one locked instruction a request; at no step do n0 (no io-wq), a0 (its worker
# never sleeps inside the spans) or q0 (NOPs by the SQ thread, no io-wq) move, nor any event
# of theirs.
ab_iowq() {
	local reasons=() k row
	series_patches "$REPO/kernel/io-wq-creation/series"
	ab iowq --tree "$ROOT/parent" "${PATCHES[@]}" --each \
		--re '[PATCHSET 0/3] Avoid unnecessary io-wq worker creation'
	ab_table_ok iowq 1 || return 0
	grep -q '^ab.sh: \[1/3 p1\] its points reused: booted ' "$WORK/ab-iowq.log" ||
		reasons+=("step 1 was booted: its image is not the parent's")
	[[ -z $(t_rows iowq:1 moved) ]] || reasons+=("step 1 moved $(t_rows iowq:1 moved | tr '\n' ' ')")
	for row in $(t_rows iowq:1); do
		[[ $(t_field iowq:1 "$row" events_moved) == - ]] || reasons+=("step 1 moved $row's events")
	done
	judge ab-iowq-1-is-the-parent "$WORK/ab-iowq.txt" "${reasons[@]}"
	reasons=()
	[[ $(t_field iowq:2 b0 verdict) == moved ]] && num "$(t_field iowq:2 b0 delta)" '<' 0 &&
		cmp_within "$(t_field iowq:2 b0 locked_delta)" -1 0.05 ||
		reasons+=("step 2 did not lower b0 by a locked instruction a request: $(t_field iowq:2 b0 delta), $(t_field iowq:2 b0 locked_delta) locked")
	for k in 1 2 3; do
		for row in n0 a0 q0; do
			# a0's rounds meet the timer tick wherever another image puts it: a change of an
			# instruction or two a NOP may clear the gate (docs/series.md); its path's own
			# does not exist here, and b0's is forty.
			if [[ $row == a0 ]]; then
				cmp_within "$(t_field "iowq:$k" a0 delta)" 0 4 || reasons+=("step $k moved a0 by $(t_field "iowq:$k" a0 delta)")
			else
				[[ $(t_field "iowq:$k" "$row" verdict) == unmoved ]] || reasons+=("step $k moved $row")
			fi
			[[ $(t_field "iowq:$k" "$row" events_moved) == - ]] ||
				reasons+=("step $k moved $row's events: $(t_field "iowq:$k" "$row" events_moved)")
		done
	done
	judge ab-iowq-moves-what-its-source-says "$WORK/ab-iowq.txt" "${reasons[@]}"
}

# smp_exact: the parent booted twice at once with two vCPUs on the instruction clock, the
# whole suite with the counter: every item's point the same in both, line for line, but for
# each boot's own identity (docs/smp-icount.md).
smp_exact() {
	local k pids=() reasons=() f n=0 t0
	t0=$(now)
	for k in 1 2; do
		"$REPO/scripts/boot-point.sh" --kernel "${IMG[parent]}" -o "$WORK/smp-$k" --accel icount \
			--cpus 2 --cost "${IMG[parent]%/"$IMAGE"}/System.map" --timeout "$TIMEOUT" \
			--bin "$BIN" -- suite "${AB_RUN[@]}" >"$WORK/boot-smp-$k.log" 2>&1 &
		pids+=($!)
	done
	for k in 1 2; do
		wait "${pids[k - 1]}" || reasons+=("boot $k: exit $?: $(tail -n 1 "$WORK/boot-smp-$k.log")")
	done
	timed "two boots of the parent, two vCPUs" "$(since "$t0")"
	for f in "$WORK"/smp-1/*.txt; do
		[[ -e $f ]] || continue
		n=$((n + 1))
		cmp -s <(sed -E 's/(kernel_)?boot_id=[^ ]*//g' "$f") \
			<(sed -E 's/(kernel_)?boot_id=[^ ]*//g' "$WORK/smp-2/${f##*/}" 2>/dev/null) ||
			reasons+=("${f##*/} differs")
	done
	((n > 20)) || reasons+=("$n points, not the suite's")
	grep -q '^# boot=.* -smp 2 ' "$WORK/smp-1/s0.txt" 2>/dev/null || reasons+=("not booted with two vCPUs")
	note "smp: $n files of two boots with two vCPUs compared"
	judge smp-two-boots-the-same "$WORK/boot-smp-1.log" "${reasons[@]}"
}

# ab_kellermann: Max Kellermann's io-wq series (kernel/kellermann/series: his 1-6 written
# for 6.12, then the project's cache-req-flags and poll-skip-redundant-wakeups patches as 7
# and 8), patch by patch on the parent (docs/series.md). What its source makes certain:
# each of 1-6 saves a0 instructions (4 and 6 too few to be always seen: they must not
# raise it), only 5 locked ones (the four of the hash bucket's
# lock); 3 costs the cancel path a locked instruction a pair (c0: two lists, two locks);
# 8 moves pollwake's wake-up modes and nothing else; no step moves n0.
ab_kellermann() {
	local reasons=() k
	series_patches "$REPO/kernel/kellermann/series"
	ab kellermann --tree "$ROOT/parent" "${PATCHES[@]}" --each \
		--re '[PATCH 0/8] Various io_uring micro-optimizations (reducing lock contention)'
	ab_table_ok kellermann 1 || return 0
	for k in 1 2 3 4 5 6; do
		# 4 and 6 save one to three instructions an op, within what a timer tick landing
		# elsewhere in a round moves a0 by when the booted binary changes (6: -0.99 moved in
		# the fixture's run, unmoved in another binary's): they must not raise it.
		if [[ $k == [46] ]]; then
			[[ $(t_field "kellermann:$k" a0 verdict) != moved ]] ||
				num "$(t_field "kellermann:$k" a0 delta)" '<' 0 || reasons+=("step $k raised a0")
		else
			[[ $(t_field "kellermann:$k" a0 verdict) == moved ]] &&
				num "$(t_field "kellermann:$k" a0 delta)" '<' 0 || reasons+=("step $k did not lower a0")
		fi
		local want=0
		[[ $k != 5 ]] || want=-4
		cmp_within "$(t_field "kellermann:$k" a0 locked_delta)" "$want" 0.01 ||
			reasons+=("step $k moved a0's locked instructions by $(t_field "kellermann:$k" a0 locked_delta), not $want")
	done
	judge ab-kellermann-1-6-lower-a0 "$WORK/ab-kellermann.txt" "${reasons[@]}"
	reasons=()
	[[ $(t_field kellermann:3 c0 verdict) == moved ]] && num "$(t_field kellermann:3 c0 delta)" '>' 0 &&
		cmp_within "$(t_field kellermann:3 c0 locked_delta)" 1 0.01 ||
		reasons+=("step 3 did not cost c0 a locked instruction a pair")
	[[ $(t_rows kellermann:8 moved | tr '\n' ' ') == "pollwake/idle pollwake/waiter " ]] ||
		reasons+=("step 8 moved $(t_rows kellermann:8 moved | tr '\n' ' '), not pollwake's idle and waiter alone")
	for k in 1 2 3 4 5 6 7 8; do
		[[ $(t_field "kellermann:$k" n0 verdict) == unmoved ]] || reasons+=("step $k moved n0")
	done
	judge ab-kellermann-moves-what-its-source-says "$WORK/ab-kellermann.txt" "${reasons[@]}"
}

# ab_fixtures DIR: the tables kept beside the points, as printed (ab-NAME.out) and their
# TSV (series.tsv for a series); and each step of the fix series as a table of two kernels
# (ab-child, ab-fix1, ab-fix2: README and docs/fixes.md show them), made by ab's judge from
# the step's points and the one's before, under the labels base and head.
ab_fixtures() {
	local name pair
	for name in fixes poll series kellermann iowq; do
		[[ -s $WORK/ab-$name.txt ]] || continue
		cp "$WORK/ab-$name.txt" "$1/ab-$name.out"
		if [[ -s $WORK/ab-$name/series.tsv ]]; then
			cp "$WORK/ab-$name/series.tsv" "$1/ab-$name.tsv"
			cp "$WORK/ab-$name/steps.tsv" "$1/ab-$name-steps.tsv"
		else
			cp "$WORK/ab-$name/ab.tsv" "$1/ab-$name.tsv"
		fi
	done
	[[ -s $WORK/ab-fixes/series.tsv ]] || return 0
	for pair in child:base:p1 fix1:p1:p2 fix2:p2:p3; do
		IFS=: read -r name base head <<<"$pair"
		rm -rf "$WORK/step-$name"
		mkdir "$WORK/step-$name"
		(cd "$WORK/ab-fixes" && "$BIN" ab -o "$WORK/step-$name" "base=$base" "head=$head") \
			>"$1/ab-$name.out" 2>/dev/null || true
		cp "$WORK/step-$name/ab.tsv" "$1/ab-$name.tsv"
	done
}
