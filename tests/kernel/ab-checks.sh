# shellcheck shell=bash disable=SC2154,SC2034
# (its variables are run.sh's, and run.sh's are its: checked together through run.sh.)
# Sourced by tests/kernel/run.sh (bash; not run on its own): its boots, made by
# scripts/ab.sh, and what its tables must say.
#
# Every profile is measured by ab, each kernel booted once for all of them (a suite):
#   ab-child   parent against child (079afb081c42): the futex profiles move; another row
#              moves only through the helper the change makes an ordinary function
#              (io_req_track_inflight, no longer inlined where a request's file is a
#              ring: pollwake's MSG_RING, +5 a completion), and n0, the NOP control, not;
#   ab-poll    parent against the poll change: pollwake moves (idle, waiter), no other;
#   ab-fix1    child against fix1: s0 and its shared variant lower, by the WAKE's tracking
#              (two locked instructions a pair: one atomic_inc, one atomic_dec); no row but
#              a futex one moves;
#   ab-fix2    fix1 against fix2: shared s0 lowers, by the WAIT's tracking (two locked
#              instructions a pair); private s0 keeps its tracking: no locked instruction
#              moves there, and the only function that moves is the FLAGS_SHARED test fix 2
#              adds in io_futex_wait (+2, its test and its branch); no row but a futex one
#              moves;
#   ab-series  the harmless stretch of kernel/bisect/series (its first commit against the
#              one before the tracking change, both built in the bisect's tree from their
#              commits): nothing moves.
# Each ab has a cache of its own under $ROOT (ab-NAME), so that every one stays warm from
# run to run; a cold one starts from the objects of the trees run.sh built.
# The points the single-profile boots made before are taken from ab's boots, under the
# same names (POINTS, $WORK/points), and one more boot of the child gives the sandwich its
# second child point: run.sh's assertions on them are unchanged.

# The suite's run options, ab's and the extra boot's (ab's default, named: the points are
# compared with each other).
readonly AB_RUN=(--cycles 64 --rounds 5 --warmups 1)

# ab NAME ARGS...: scripts/ab.sh NAME's run, its table in $WORK/ab-NAME.txt, its progress in
# ab-NAME.log, its directory $WORK/ab-NAME; AB_RC its exit code.
AB_RC=0
ab() {
	local name=$1 t0 try
	shift
	t0=$(now)
	for try in 1 2; do
		AB_RC=0
		"$REPO/scripts/ab.sh" "$@" -o "$WORK/ab-$name" --cache "$ROOT/ab-$name" --jobs "$JOBS" \
			--bin "$BIN" --timeout "$TIMEOUT" -- "${AB_RUN[@]}" >"$WORK/ab-$name.txt" \
			2>"$WORK/ab-$name.log" || AB_RC=$?
		# A cache an older ab.sh left (of another layout) is refused, named: it goes, and
		# the run starts again from the trees' objects.
		((AB_RC == 2 && try == 1)) && grep -q 'holds copies an older ab.sh made' "$WORK/ab-$name.log" ||
			break
		note "ab $name: the cache of an older ab.sh removed ($ROOT/ab-$name)"
		rm -rf "$ROOT/ab-$name"
	done
	timed "ab $name" "$(since "$t0")"
	note "ab $name: exit $AB_RC, $(awk -F'\t' '$10 == "moved" { n++ } END { print n + 0 }' \
		"$WORK/ab-$name/ab.tsv" 2>/dev/null) rows moved"
}

# ab_rows NAME VERDICT: the rows of NAME's table with that verdict, one a line.
ab_rows() { awk -F'\t' -v v="$2" 'NR > 1 && $10 == v { print $1 }' "$WORK/ab-$1/ab.tsv"; }

# row_about NAME ROW: the workload of the row in kernel words (ab.tsv's about column).
row_about() { field "$WORK/ab-$1/ab.tsv" about "$2"; }

# ab_field NAME ROW COLUMN: COLUMN (by its header name) of ROW in NAME's ab.tsv.
ab_field() { field "$WORK/ab-$1/ab.tsv" "$3" "$2"; }

# ab_table_ok NAME WANT: the run gave a table and exit WANT (case ab-NAME).
ab_table_ok() {
	local reasons=()
	((AB_RC == $2)) || reasons+=("exit $AB_RC, not $2")
	[[ -s $WORK/ab-$1/ab.tsv ]] || reasons+=("no ab.tsv")
	judge "ab-$1" "$WORK/ab-$1.log" "${reasons[@]}"
	[[ -s $WORK/ab-$1/ab.tsv ]]
}

# keep KEY NAME BOOT ITEM: ITEM's point of ab NAME's boot BOOT as POINTS[KEY] (in
# $WORK/points, where run.sh's checks read them), its log ab NAME's.
declare -A POINT_LOG=()
keep() {
	[[ -s $WORK/ab-$2/$3/$4.txt ]] || return 0
	cp "$WORK/ab-$2/$3/$4.txt" "$WORK/points/$1.txt"
	POINTS[$1]=$WORK/points/$1.txt POINT_LOG[$1]=$WORK/ab-$2.log
}

ab_child() {
	local row reasons=() futex=() t0
	ab child --base-src "$ROOT/parent" --head-src "$ROOT/child"
	ab_table_ok child 1 || return 0
	keep s0-parent-1 child base-1 s0
	keep s0-child-1 child head s0
	keep s0-parent-2 child base-2 s0
	keep s0-shared-parent child base-1 s0-shared
	keep s0-shared-child child head s0-shared
	keep pollwake-child child head pollwake
	for row in n0 v0 c0; do
		keep "$row-parent" child base-1 "$row"
		keep "$row-child" child head "$row"
	done
	# Every row about futexes moved.
	while IFS=$'\t' read -r row; do
		[[ $(row_about child "$row") == *[Ff][Uu][Tt][Ee][Xx]* ]] || continue
		futex+=("$row")
		[[ $(awk -F'\t' -v r="$row" '$1 == r { print $10 }' "$WORK/ab-child/ab.tsv") == moved ]] ||
			reasons+=("$row did not move")
	done < <(awk -F'\t' 'NR > 1 { print $1 }' "$WORK/ab-child/ab.tsv")
	((${#futex[@]} > 0)) || reasons+=("no futex profile in the table")
	judge ab-child-futex-profiles-move "$WORK/ab-child.txt" "${reasons[@]}"
	# No other row moved but through the helper the change makes an ordinary function.
	reasons=()
	while read -r row; do
		[[ " ${futex[*]} " != *" $row "* ]] || continue
		grep -Eq '^ *- +\+[0-9.]+ +([-+]?[0-9.]+ +)?io_req_track_inflight \(head only\)$' "$WORK/ab-child/compare/${row//[:\/]/-}.txt" ||
			reasons+=("$row moved, and not through io_req_track_inflight")
	done < <(ab_rows child moved)
	[[ $(ab_rows child unmoved) == *n0* ]] || reasons+=("n0, the NOP control, moved or is missing")
	judge ab-child-no-other-profile-moves "$WORK/ab-child.txt" "${reasons[@]}"
	# The sandwich's second child point: the child's image booted once more, as ab boots.
	local obj=$ROOT/ab-child/head/tree/$OBJ
	t0=$(now)
	"$REPO/scripts/boot-point.sh" --kernel "$obj/$IMAGE" -o "$WORK/child-2" --accel icount \
		--cost "$obj/System.map" --timeout "$TIMEOUT" --bin "$BIN" -- suite "${AB_RUN[@]}" \
		>"$WORK/boot-child-2.log" 2>&1 || true
	BOOTS+=("child-2 $(since "$t0")")
	if [[ -s $WORK/child-2/s0.txt ]]; then
		cp "$WORK/child-2/s0.txt" "$WORK/points/s0-child-2.txt"
		POINTS[s0-child-2]=$WORK/points/s0-child-2.txt POINT_LOG[s0-child-2]=$WORK/boot-child-2.log
	else
		result_fail boot-s0-child-2 "no point" "$WORK/boot-child-2.log"
	fi
}

ab_poll() {
	local row reasons=()
	ab poll --base-src "$ROOT/parent" --head-src "$ROOT/poll"
	ab_table_ok poll 1 || return 0
	keep pollwake-parent poll base-1 pollwake
	keep pollwake-poll poll head pollwake
	for row in pollwake/idle pollwake/waiter; do
		[[ $(ab_rows poll moved) == *"$row"* ]] || reasons+=("$row did not move")
	done
	judge ab-poll-pollwake-moves "$WORK/ab-poll.txt" "${reasons[@]}"
	reasons=()
	while read -r row; do
		[[ $row == pollwake/* ]] || reasons+=("$row moved")
	done < <(ab_rows poll moved)
	judge ab-poll-no-other-profile-moves "$WORK/ab-poll.txt" "${reasons[@]}"
}

# futex_rows_only NAME: the case ab-NAME-no-other-profile-moves: every row that moved is
# about futexes (its series' about= words).
futex_rows_only() {
	local row reasons=()
	while read -r row; do
		[[ $(row_about "$1" "$row") == *[Ff][Uu][Tt][Ee][Xx]* ]] || reasons+=("$row moved")
	done < <(ab_rows "$1" moved)
	judge "ab-$1-no-other-profile-moves" "$WORK/ab-$1.txt" "${reasons[@]}"
}

# lowered NAME ROW LOCKED: the reasons ROW of NAME did not move down, with its locked
# instructions per pair changed by exactly LOCKED, appended to the caller's reasons.
lowered() {
	local delta
	delta=$(ab_field "$1" "$2" delta)
	[[ $(ab_field "$1" "$2" verdict) == moved ]] || reasons+=("$2 did not move")
	[[ -n $delta ]] && num "$delta" '<' 0 || reasons+=("$2 changed by ${delta:-nothing}, not down")
	locked_by "$1" "$2" "$3"
}

# locked_by NAME ROW LOCKED: the reasons ROW's locked instructions per pair did not change by
# LOCKED, appended to the caller's reasons: the functions its cost table lists as moved,
# together, by exactly that (to the table's third decimal), and the kernel's, all functions
# (ab.tsv's locked_delta), within LOCKED_TICK of it.
locked_by() {
	local d listed
	listed=$(awk '/ the [0-9]+ listed$/ { print $3; exit }' "$WORK/ab-$1/compare/${2//[:\/]/-}.txt")
	[[ $3 == 0 && -z $listed ]] || num "${listed:-x}" '==' "$3" ||
		reasons+=("$2's listed functions' locked instructions changed by ${listed:-nothing}, not $3")
	d=$(ab_field "$1" "$2" locked_delta)
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

ab_fix1() {
	local row reasons=()
	ab fix1 --base-src "$ROOT/child" --head-src "$ROOT/fix1"
	ab_table_ok fix1 1 || return 0
	keep s0-fix1 fix1 head s0
	keep s0-shared-fix1 fix1 head s0-shared
	for row in s0 s0:shared; do lowered fix1 "$row" "$LOCKED_ONE_REQUEST"; done
	judge ab-fix1-lowers-s0 "$WORK/ab-fix1.txt" "${reasons[@]}"
	futex_rows_only fix1
}

ab_fix2() {
	local reasons=() moved
	ab fix2 --base-src "$ROOT/fix1" --head-src "$ROOT/fix2"
	ab_table_ok fix2 1 || return 0
	keep s0-fix2 fix2 head s0
	keep s0-shared-fix2 fix2 head s0-shared
	lowered fix2 s0:shared "$LOCKED_ONE_REQUEST"
	judge ab-fix2-lowers-shared-s0 "$WORK/ab-fix2.txt" "${reasons[@]}"
	# Private s0: the same requests tracked; fix 2's test is all that moves.
	reasons=()
	locked_by fix2 s0 0
	moved=$(cost_listed "$WORK/ab-fix2/compare/s0.txt" | tr '\t\n' '  ')
	[[ $moved == 'io_futex_wait +2.000 ' ]] ||
		reasons+=("s0's functions that moved are not io_futex_wait's +2.000 alone: ${moved:-none}")
	judge ab-fix2-keeps-private-s0-tracking "$WORK/ab-fix2.txt" "${reasons[@]}"
	futex_rows_only fix2
}

# ab_series: the bisect's history from its first commit to the one before the tracking
# change (three harmless changes), by revision (ab --tree): nothing moves.
ab_series() {
	local before reasons=()
	before=$(git -C "$ROOT/bisect" rev-parse "$BISECT_TRACKING~1")
	ab series --tree "$ROOT/bisect" --base "$BISECT_GOOD" --head "$before"
	ab_table_ok series 0 || return 0
	[[ -z $(ab_rows series moved) ]] || reasons+=("moved: $(ab_rows series moved | tr '\n' ' ')")
	judge ab-series-nothing-moves "$WORK/ab-series.txt" "${reasons[@]}"
}

# ab_fixtures DIR: the tables kept beside the points, as printed (ab-NAME.out: the
# README shows ab-child's) and ab.tsv.
ab_fixtures() {
	local name
	for name in child poll fix1 fix2 series; do
		[[ -s $WORK/ab-$name/ab.tsv ]] || continue
		cp "$WORK/ab-$name.txt" "$1/ab-$name.out"
		cp "$WORK/ab-$name/ab.tsv" "$1/ab-$name.tsv"
	done
}
