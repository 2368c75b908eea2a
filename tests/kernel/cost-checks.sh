# Sourced by tests/kernel/run.sh (bash; not run on its own): its cost checks.
#
# Where the cost went: every boot of run.sh ran with --cost, so each point carries `# cost:`
# lines (kernel instructions per function inside the timed spans, docs/cost.md), and
# compare diffs them per function. The tables are checked against the points' own lines
# (an awk of its own here) and against what each kernel change is known to do.

# How far the counter's change (kernel + user, `counted`) may be from the point's (`the
# point`, timed) in s0: the clock's rounding (under 0.001 a pair) and the timer interrupts
# that land in a clock read's instructions outside the timed spans, counted but not timed
# (2,320 instructions each, and the vDSO's 27-instruction retry of the read: 0.0094 a pair
# of the report's contract's 245,760 pairs, 0.23 of ab's 10,240). Measured
# (docs/reproduction.md, "Where the cost went"): none in the fixtures' boots (0.0004 apart);
# with another build of the binary one in the child's, none in the parent's (0.0099 apart,
# the report's contract). Two such interrupts, over the point's pairs.
readonly COST_INTERRUPT=2347 # instructions
# How far the functions listed (those that moved by one instruction a cycle or more) may be
# from the point's change: the rest is the timer tick's work, of which the child's longer
# rounds hold more (the fixtures: -0.032 over 320 functions, 24 of them moved), and a whole
# timer interrupt more or less in one kernel's spans (COST_INTERRUPT's two, over the
# point's pairs: a run after the guest's date was fixed had one, +0.217 a pair).
readonly LISTED_TOLERANCE=0.1
# pollwake's idle mode: the wake-up path a message's completion takes on the parent and the
# poll kernel skips (`__wake_up` and what it calls here: the epoll callback under the wait
# queue's lock), and the poll kernel's own change in `io_poll_wq_wake` (the flag's exchange).
# `__raw_write_unlock_irqrestore` is the name the mapping gives `_raw_spin_unlock_irqrestore`'s
# alias (docs/cost.md); `ep_set_busy_poll_napi_id`, the callback's, is built with CONFIG_NET
# (its busy polling).
readonly WAKE_PATH=(__wake_up __wake_up_common_lock __wake_up_common ep_poll_callback
	_raw_spin_lock_irqsave do_raw_spin_lock _raw_spin_unlock_irqrestore
	__raw_write_unlock_irqrestore ep_set_busy_poll_napi_id)
readonly WAKE_FLAG=io_poll_wq_wake
# A function on an op's path that a change moves, moves by whole instructions an op; one the
# timer tick runs inside the spans (the scheduler's load tracking, the tick's own) moves by
# the tick's phase, by hundredths (the n0 and pollwake spans of two builds of the binary:
# __update_load_avg_se -0.047, __update_load_avg_cfs_rq -0.037). Below this, a function
# that is not the path's is the tick's doing: said, not failed (ab's gate, per op).
readonly TICK_FN_TOLERANCE=0.5

# cost_rows TEXT: the first cost table's rows in compare's TEXT, one `CHANGE<TAB>WHAT` a line
# (its columns: the control's figure in 14, the change in 12, the locked change when the points
# counted locked instructions, then what, where its header's `kernel function` starts; a
# name too long for its line goes on, indented, on the next).
cost_rows() {
	awk '/^Where the cost went, / { on = 1; next }
		on && !at && /  change  (locked  )?kernel function$/ { at = index($0, "kernel function"); next }
		!at { next }
		substr($0, 15, 12) ~ /^ *[-+]?[0-9]+\.[0-9][0-9][0-9]$/ {
			if (row != "") print row
			c = substr($0, 15, 12); gsub(/ /, "", c); row = c "\t" substr($0, at); next }
		row != "" && substr($0, 1, at - 1) ~ /^ *$/ && NF {
			sub(/^ +/, ""); row = row " " $0; next }
		{ exit }
		END { if (row != "") print row }' "$1"
}
# cost_row TEXT WHAT: the change on the row of WHAT (`kernel, all functions`, a function).
cost_row() { cost_rows "$1" | awk -F'\t' -v w="$2" '$2 == w { print $1; exit }'; }
# cost_listed TEXT: the functions listed by name in that table, `NAME<TAB>CHANGE` a line
# (the rows above `the N listed` and `N other functions`; NAME without its `(LABEL only)`).
cost_listed() {
	cost_rows "$1" | awk -F'\t' '$2 ~ /^the [0-9]+ listed$/ || $2 ~ / other functions?$/ { exit }
		{ sub(/ \([^ ]* only\)$/, "", $2); print $2 "\t" $1 }'
}
# cost_says TEXT PHRASE: the sentences under the first cost table in TEXT (joined across
# their lines) hold PHRASE.
cost_says() {
	awk '/^Where the cost went, / { on = 1 } on && /^  [A-Z]/ { s = 1 } s && /^$/ { exit }
		s { sub(/^ +/, ""); printf "%s ", $0 }' "$1" | grep -qF -- "$2"
}
# lines_change SERIES FUNCTION N FILE...: FUNCTION's change per pair from the points' own
# `# cost: fn` lines, the first N files the control's, the rest the test's (each label the
# mean of its points), 6 decimals.
lines_change() {
	awk -v s="$1" -v f="$2" -v nc="$3" '
		FNR == 1 { side = ++k > nc; n[side]++ }
		$1 == "#" && $2 == "cost:" && $3 == "series" && $4 == s {
			for (i = 5; i <= NF; i++) if ($i ~ /^pairs=/) pairs = substr($i, 7) }
		$1 == "#" && $2 == "cost:" && $3 == "fn" && $4 == s && $7 == f { v[side] += $6 / pairs }
		END { printf "%.6f\n", v[1] / n[1] - v[0] / n[0] }' "${@:4}"
}
# cmp_within A B TOL: |A - B| <= TOL.
cmp_within() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; exit !((d < 0 ? -d : d) <= t) }'; }

cost_checks() {
	local p1=${POINTS[s0-parent-1]:-} p2=${POINTS[s0-parent-2]:-} c1=${POINTS[s0-child-1]:-} c2=${POINTS[s0-child-2]:-}
	local t reasons f got want sum
	if [[ -n $p1 && -n $p2 && -n $c1 && -n $c2 ]]; then
		# The sandwich as in the mail; compare's text has the table after the comparison.
		t=$WORK/compare-s0.txt
		local counted point tolerance
		counted=$(cost_row "$t" "counted (kernel + user)") point=$(cost_row "$t" "the point (timed)")
		tolerance=$(awk -F'\t' -v i="$COST_INTERRUPT" '$1 == "mean" { printf "%.4f", 2 * i / $2; exit }' "$p1")
		reasons=()
		[[ -n $counted && -n $point ]] || reasons+=("no cost table in compare's text")
		# The point's change, from compare's TSV (6 decimals): the table's `the point` row.
		want=$(awk -v a="$(field "$WORK/compare-s0.tsv" control_value)" \
			-v b="$(field "$WORK/compare-s0.tsv" test_value)" 'BEGIN { printf "%+.3f", b - a }')
		[[ $point == "$want" ]] || reasons+=("the table's point row $point is not compare's change $want")
		cmp_within "${counted:-0}" "${point:-1}" "${tolerance:-0}" ||
			reasons+=("counted $counted is not the point's change $point within $tolerance")
		sum=$(cost_listed "$t" | awk -F'\t' '{ s += $2 } END { printf "%.3f", s }')
		local listed_tolerance
		listed_tolerance=$(awk -v a="$LISTED_TOLERANCE" -v b="${tolerance:-0}" 'BEGIN { printf "%.4f", a + b }')
		cmp_within "$sum" "${point:-1}" "$listed_tolerance" ||
			reasons+=("the listed functions make $sum, not the point's $point within $listed_tolerance")
		# Every row of a function as the points' own lines give it.
		while IFS=$'\t' read -r f got; do
			want=$(lines_change s0_wait_wake "$f" 2 "$p1" "$p2" "$c1" "$c2")
			cmp_within "$got" "$want" 0.0005 || reasons+=("$f: the table says $got, the lines $want")
		done < <(cost_listed "$t")
		judge s0-cost-explains-the-change "$t" "${reasons[@]}"
		note "s0 cost: counted $counted, the point $point, the listed functions $sum"
		reasons=()
		grep -Eq '^ *- +\+[0-9.]+ +([-+]?[0-9.]+ +)?io_req_track_inflight \(child only\)$' "$t" ||
			reasons+=("io_req_track_inflight is not listed as the child's only")
		judge s0-cost-new-helper "$t" "${reasons[@]}"
	fi
	local a=${POINTS[n0-parent]:-} b=${POINTS[n0-child]:-}
	if [[ -n $a && -n $b ]]; then
		t=$WORK/compare-n0-cost.txt
		(cd "$WORK/points" && "$BIN" compare parent=n0-parent.txt child=n0-child.txt) >"$t" 2>&1 || true
		reasons=()
		local others=()
		[[ -n $(cost_row "$t" "kernel, all functions") ]] || reasons+=("no cost table")
		# The NOP path is io_uring's: none of its functions may move. Another function that
		# moved is other work that fell into the spans (the tick's, a context switch into a
		# kthread: the scheduler's functions, RCU's), by hundredths of an instruction a NOP.
		while IFS=$'\t' read -r f got; do
			[[ -n $f ]] || continue
			f=${f%% (*}
			if [[ $f == io_* || $f == __io_* ]]; then
				reasons+=("io_uring's $f moved $got")
			elif ! cmp_within "$got" 0 "$TICK_FN_TOLERANCE"; then
				reasons+=("$f moved $got (at most $TICK_FN_TOLERANCE, the tick's, for a function not io_uring's)")
			elif grep -q "^# cost: fn n0_nop .* $f\$" "$a"; then
				others+=("$f $got (the parent's spans ran it too: the tick's)")
			else
				others+=("$f $got")
			fi
		done < <(cost_listed "$t")
		((${#others[@]} == 0)) || note "n0 cost: moved by the tick, not io_uring's: ${others[*]}"
		judge n0-cost-nop-path-unmoved "$t" "${reasons[@]}"
	fi
	a=${POINTS[pollwake-parent]:-} b=${POINTS[pollwake-poll]:-}
	if [[ -n $a && -n $b ]]; then
		t=$WORK/compare-pollwake-idle.txt
		(cd "$WORK/points" && "$BIN" compare --mode idle parent=pollwake-parent.txt \
			poll=pollwake-poll.txt) >"$t" 2>&1 || true
		reasons=()
		local listed
		listed=$(cost_listed "$t")
		[[ -n $listed ]] || reasons+=("no function listed")
		while IFS=$'\t' read -r f got; do
			[[ -n $f ]] || continue
			if [[ $f == "$WAKE_FLAG" ]]; then
				num "$got" '>' 0 || reasons+=("$f moved $got, not up")
			elif [[ " ${WAKE_PATH[*]} " == *" $f "* ]]; then
				num "$got" '<' 0 || reasons+=("$f moved $got, not down")
			elif cmp_within "$got" 0 "$TICK_FN_TOLERANCE"; then
				note "pollwake cost: $f moved $got, the tick's (not on the wake-up path)"
			else
				reasons+=("$f moved $got: not on the wake-up path")
			fi
		done <<<"$listed"
		for f in __wake_up ep_poll_callback __wake_up_common; do
			grep -q "^$f"$'\t' <<<"$listed" || reasons+=("$f is not listed")
		done
		judge pollwake-cost-wake-path "$t" "${reasons[@]}"
	fi
}
