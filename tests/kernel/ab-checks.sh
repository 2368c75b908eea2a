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
	local name=$1 t0
	shift
	t0=$(now)
	AB_RC=0
	"$REPO/scripts/ab.sh" "$@" -o "$WORK/ab-$name" --cache "$ROOT/ab-$name" --jobs "$JOBS" \
		--bin "$BIN" --timeout "$TIMEOUT" -- "${AB_RUN[@]}" >"$WORK/ab-$name.txt" \
		2>"$WORK/ab-$name.log" || AB_RC=$?
	timed "ab $name" "$(since "$t0")"
	note "ab $name: exit $AB_RC, $(awk -F'\t' '$10 == "moved" { n++ } END { print n + 0 }' \
		"$WORK/ab-$name/ab.tsv" 2>/dev/null) rows moved"
}

# ab_rows NAME VERDICT: the rows of NAME's table with that verdict, one a line.
ab_rows() { awk -F'\t' -v v="$2" 'NR > 1 && $10 == v { print $1 }' "$WORK/ab-$1/ab.tsv"; }

# row_about NAME ROW: the about= words of the row's series (its `# series:` line, in the
# base's point of its item).
row_about() {
	local item=${2%%/*} mode=""
	[[ $item == "$2" ]] || mode=${2#*/}
	awk -v mode="$mode" '/^# series: / && (mode == "" || index($0 " ", " mode=" mode " ")) {
			s = $0; sub(/.* about="/, "", s); sub(/".*/, "", s); print s; exit }' \
		"$WORK/ab-$1/base-1/${item//:/-}.txt"
}

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
		grep -q '^ *- *+[0-9.]*  io_req_track_inflight (head only)$' "$WORK/ab-child/compare/${row//[:\/]/-}.txt" ||
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
	for name in child poll series; do
		[[ -s $WORK/ab-$name/ab.tsv ]] || continue
		cp "$WORK/ab-$name.txt" "$1/ab-$name.out"
		cp "$WORK/ab-$name/ab.tsv" "$1/ab-$name.tsv"
	done
}
