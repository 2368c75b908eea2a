# shellcheck shell=sh disable=SC2154,SC2034
# (SC2154, SC2034: its variables are ab.sh's, and ab.sh's are its; checked together
# through ab.sh.)
# ab-table.sh: scripts/ab.sh's table, sourced by it (POSIX sh; not run on its own): the
# three boots' points compared row by row by `uring-repro compare` (its figures, its
# interval, its table of where the cost went: nothing of it computed again here), the
# verdict of each row, ab.tsv, the text printed, the mail drafts; and -o DIR published.

# The columns of ab.tsv, in order.
TSV_COLUMNS="profile unit base head delta delta_pct locked_base locked_head locked_delta verdict base_spread delta_low delta_high why"

# The change round by round, and its 95% interval: each round of the head's point against
# the mean of the same round of the base's two (one binary on the instruction clock: the
# rounds of two kernels meet the same ticks, so the difference of a round is the change,
# and what the ticks did differently; the spread of those differences, and Student's t,
# bound it). Reads the three points (base, head, base again) of a series (NAME, its rows'
# first column in a table of several; or the rows of a table of one); prints the mean
# difference and the interval's ends, or fails (status 2) on points it cannot pair.
# t: the two-sided 95% quantile, from a table up to 30 degrees of freedom, beyond by
# Cornish-Fisher's expansion (within 0.001).
# shellcheck disable=SC2016 # awk's program
PAIRED_AWK='
function t95(df,    z) {
	if (df <= 30) {
		split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 2.228 2.201 2.179 2.160 2.145 2.131 2.120 2.110 2.101 2.093 2.086 2.080 2.074 2.069 2.064 2.060 2.056 2.052 2.048 2.045 2.042", T, " ")
		return T[df]
	}
	z = 1.959964
	return z + (z ^ 3 + z) / (4 * df) + (5 * z ^ 5 + 16 * z ^ 3 + 3 * z) / (96 * df ^ 2)
}
FNR == 1 { f++; n[f] = 0; several = 0 }
$1 == "profile" && $2 == "round" { several = 1; next }
several && $1 == name && $2 ~ /^[0-9]+$/ { v[f, n[f]++] = $4; next }
!several && $1 ~ /^[0-9]+$/ { v[f, n[f]++] = $3 }
END {
	if (f != 3 || n[1] < 2 || n[1] != n[2] || n[1] != n[3]) exit 2
	k = n[1]
	for (r = 0; r < k; r++) { d[r] = v[2, r] - (v[1, r] + v[3, r]) / 2; s += d[r] }
	m = s / k
	for (r = 0; r < k; r++) ss += (d[r] - m) ^ 2
	h = t95(k - 1) * sqrt(ss / (k - 1)) / sqrt(k)
	printf "%.6f\t%.6f\t%.6f\n", m, m - h, m + h
}'


# item_word BOOT ITEM: how ITEM ended in that boot, from its suite.txt (pass, skip, fail,
# interrupted, not-run; none when the boot has no line for it).
item_word() {
	awk -v item="$2" '$1 == "#" && $2 == "suite:" && $3 ~ /^[0-9]+\/[0-9]+$/ && $4 == item {
			if ($5 == "not" && $6 == "run") w = "not-run"; else { w = $6; sub(/:$/, "", w) }
			print w; found = 1; exit }
		END { if (!found) print "none" }' "$work/$1/suite.txt"
}

# series_unit POINT MODE: what a figure of the series is per (its `# series:` line's per=;
# of the series of MODE when given).
series_unit() {
	awk -v mode="$2" '/^# series: / {
			if (mode != "" && index($0 " ", " mode=" mode " ") == 0) next
			s = $0; i = index(s, " per=")
			if (!i) exit
			s = substr(s, i + 5)
			if (substr(s, 1, 1) == "\"") { s = substr(s, 2); sub(/".*/, "", s) } else sub(/ .*/, "", s)
			print s; exit }' "$1"
}

# file_of NAME: NAME as a file name (`s0:shared` s0-shared, `pollwake/idle` pollwake-idle).
file_of() { printf '%s\n' "$1" | tr ':/' '--'; }

# compare_row ROW ITEM MODE UNIT: compare of the item's three points (base, head, base
# again) as a row of ab.tsv, its text kept in compare/ROW.txt.
compare_row() {
	_cr_f=$(file_of "$2").txt
	set -- "$1" "$2" "$3" "$4" "base=base-1/$_cr_f" "head=head/$_cr_f" "base=base-2/$_cr_f"
	_cr_rc=0
	(cd "$work" && "$bin" compare ${3:+--mode "$3"} "$5" "$6" "$7") \
		>"$work/compare/$(file_of "$1").txt" 2>&1 || true
	(cd "$work" && "$bin" compare --tsv ${3:+--mode "$3"} "$5" "$6" "$7") \
		>"$SCRATCH/compare.tsv" 2>"$SCRATCH/compare.err" || _cr_rc=$?
	if [ "$_cr_rc" -ne 0 ] || [ "$(wc -l <"$SCRATCH/compare.tsv")" -ne 2 ]; then
		_cr_why=$(sed -n '$s/^uring-repro: //p' "$SCRATCH/compare.err")
		trouble="$trouble${trouble:+; }$1: $_cr_why"
		printf '%s\t%s\tNA\tNA\tNA\tNA\tNA\tNA\tNA\terror\tNA\tNA\tNA\tcompare exit %s: %s\n' "$1" \
			"$4" "$_cr_rc" "$_cr_why"
		return 0
	fi
	# The change round by round (PAIRED_AWK): the series' name from its `# series:` line.
	_cr_name=$(awk -v mode="$3" '/^# series: / && (mode == "" || index($0 " ", " mode=" mode " ")) {
		print $3; exit }' "$work/base-1/$_cr_f")
	if ! _cr_paired=$(cd "$work" && awk -F '\t' -v name="$_cr_name" "$PAIRED_AWK" "base-1/$_cr_f" \
		"head/$_cr_f" "base-2/$_cr_f"); then
		trouble="$trouble${trouble:+; }$1: its points' rounds cannot be paired"
		_cr_paired="NA	NA	NA"
	fi
	# The verdict: moved when the change is at least the gate beyond the base boots' spread
	# (their means', compare's control_means) and its interval round by round excludes 0.
	printf '%s\n' "$_cr_paired" | awk -F '\t' -v row="$1" -v unit="$4" -v gate="$gate" \
		-v lb="$LOCKED_BASE_COLUMN" -v lh="$LOCKED_HEAD_COLUMN" '
		NR == 1 { lo = $2; hi = $3; next }
		NR == 2 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{
			b = $c["control_value"]; h = $c["test_value"]; d = h - b
			split($c["control_means"], m, ",")
			spread = m[2] == "" ? 0 : m[1] - m[2]
			spread = spread < 0 ? -spread : spread
			same = ("," $c["reasons"] ",") ~ /,no_change,/
			clear = lo != "NA" && (lo > 0 || hi < 0)
			v = !same && clear && (d < 0 ? -d : d) >= gate + spread ? "moved" : "unmoved"
			why = v == "moved" ? "-" : same ? "no_change" : !clear ? "interval_includes_zero" : "under_gate"
			lbv = lhv = ld = "NA"
			if ((lb in c) && (lh in c) && $c[lb] != "NA" && $c[lh] != "NA") {
				lbv = $c[lb]; lhv = $c[lh]; ld = sprintf("%.6f", lhv - lbv)
			}
			printf "%s\t%s\t%s\t%s\t%.6f\t%s\t%s\t%s\t%s\t%s\t%.6f\t%s\t%s\t%s\n", row, unit, b, h, \
				d, $c["change_pct"], lbv, lhv, ld, v, spread, lo, hi, why
		}' - "$SCRATCH/compare.tsv"
}

# word_row ROW UNIT W1 WH W2: a row whose item did not pass in every boot: the verdict from
# how it ended in each (base, head, base again).
word_row() {
	if [ "$3" != "$5" ]; then
		_wr=base-unsteady
	elif [ "$3" != "$4" ]; then
		_wr=outcome-changed
	elif [ "$3" = skip ]; then
		_wr=skipped
	else
		_wr=failed
	fi
	printf '%s\t%s\tNA\tNA\tNA\tNA\tNA\tNA\tNA\t%s\tNA\tNA\tNA\tbase %s, head %s, base again %s\n' \
		"$1" "$2" "$_wr" "$3" "$4" "$5"
}

# make_table: ab.tsv, a row per item and series (the base's items, in the suite's order),
# and ab.txt, what is printed.
make_table() {
	mkdir "$work/compare"
	trouble=""
	printf '%s\n' "$TSV_COLUMNS" | tr ' ' '\t' >"$work/ab.tsv"
	sed -n 's|^# suite: [0-9]*/[0-9]* \([^ ]*\) .*|\1|p' "$work/base-1/suite.txt" >"$SCRATCH/items"
	while IFS= read -r _mt_item; do
		_mt_f=$(file_of "$_mt_item").txt
		_mt_w1=$(item_word base-1 "$_mt_item") _mt_wh=$(item_word head "$_mt_item")
		_mt_w2=$(item_word base-2 "$_mt_item")
		# The series, from the first point there is (modes: pollwake's, a row each).
		_mt_point=""
		for _mt_b in base-1 head base-2; do
			[ -n "$_mt_point" ] || [ ! -s "$work/$_mt_b/$_mt_f" ] || _mt_point=$work/$_mt_b/$_mt_f
		done
		_mt_modes=""
		[ -z "$_mt_point" ] ||
			_mt_modes=$(sed -n 's/^# series: .* mode=\([^ ]*\).*$/\1/p' "$_mt_point" | tr '\n' ' ')
		for _mt_mode in ${_mt_modes:--}; do
			[ "$_mt_mode" != - ] || _mt_mode=""
			_mt_row=$_mt_item${_mt_mode:+/$_mt_mode}
			_mt_unit=NA
			[ -z "$_mt_point" ] || _mt_unit=$(series_unit "$_mt_point" "$_mt_mode")
			if [ "$_mt_w1 $_mt_wh $_mt_w2" = "pass pass pass" ]; then
				compare_row "$_mt_row" "$_mt_item" "$_mt_mode" "${_mt_unit:-NA}"
			else
				word_row "$_mt_row" "${_mt_unit:-NA}" "$_mt_w1" "$_mt_wh" "$_mt_w2"
			fi
		done
	done <"$SCRATCH/items" >>"$work/ab.tsv"
	moved=$(awk -F '\t' 'NR > 1 && ($10 == "moved" || $10 == "outcome-changed") { n++ } END { print n + 0 }' "$work/ab.tsv")
	format_table >"$work/ab.txt"
}

# format_table: ab.tsv for people: the table (3 decimals), how the verdict was reached,
# whether the base's boots agreed, and, for each row that moved, compare's table of where
# the cost went.
format_table() {
	awk -F '\t' -v gate="$gate" -v cost="$cost" '
		function num(v, f) { return v == "NA" ? "-" : sprintf(f, v) }
		NR == 1 {
			printf "%-16s %11s %11s %10s %9s  %s\n", "", "", "", "", "", "locked instructions"
			printf "%-16s %11s %11s %10s %9s  %7s %7s %7s  %-8s %s\n", "profile", "base", "head", \
				"delta", "delta %", "base", "head", "delta", "verdict", "unit (per)"
			next
		}
		{
			printf "%-16s %11s %11s %10s %9s  %7s %7s %7s  %-8s %s\n", $1, num($3, "%.3f"), \
				num($4, "%.3f"), num($5, "%+.3f"), num($6, "%+.3f%%"), num($7, "%.3f"), \
				num($8, "%.3f"), num($9, "%+.3f"), $10, $2
			if ($11 != "NA" && $11 + 0 > 0) spread = spread sprintf("\n  %s: the two base boots differ by %.6f (the verdict took it in)", $1, $11)
			if ($7 != "NA") locked = 1
			if ($10 != "moved" && $10 != "unmoved") other = other sprintf("\n  %s: %s (%s)", $1, $10, $14)
		}
		END {
			printf "\nmoved: |delta| >= %s instructions per pair beyond the base boots'"'"' spread, and\n", gate
			printf "its 95%% interval round by round (each round of head against the same\n"
			printf "round of base) excludes 0 (docs/ab.md, \"The gate\"). Figures: guest\n"
			printf "instructions per pair, on QEMU'"'"'s instruction clock.\n"
			if (spread == "") printf "The two base boots agree exactly in every row.\n"
			else printf "The two base boots differ:%s\n", spread
			if (!locked) printf "Locked instructions: %s.\n", cost == 0 ? "not counted (--no-cost)" : "not in this compare'"'"'s output"
			if (other != "") printf "Not compared:%s\n", other
		}' "$work/ab.tsv"
	awk -F '\t' 'NR > 1 && $10 == "moved" { print $1 }' "$work/ab.tsv" | while IFS= read -r _ft_row; do
		_ft_text=$work/compare/$(file_of "$_ft_row").txt
		grep -q '^Where the cost went, ' "$_ft_text" || continue
		printf '\n%s: where the cost went (compare/%s.txt)\n' "$_ft_row" "$(file_of "$_ft_row")"
		awk '/^Where the cost went, / { on = 1 } on && / kernel function$/ { rows = 1 }
			rows { print } rows && / the point \(timed\)$/ { exit }' "$_ft_text"
	done
}

# make_mails: the mail draft (`uring-repro report`) of each row that moved, mail/ROW.txt
# (report's notes of what the points do not state in mail/report.log); for revisions, the
# commits named (--introduced, --parent).
make_mails() {
	mkdir "$work/mail"
	awk -F '\t' 'NR > 1 && $10 == "moved" { print $1 }' "$work/ab.tsv" >"$SCRATCH/moved"
	while IFS= read -r _mm_row; do
		_mm_item=${_mm_row%%/*} _mm_mode=""
		[ "$_mm_item" = "$_mm_row" ] || _mm_mode=${_mm_row#*/}
		_mm_f=$(file_of "$_mm_item").txt _mm_out=$work/mail/$(file_of "$_mm_row").txt
		(
			cd "$work"
			if [ "$form" = revisions ]; then
				set -- --introduced "$(printf '%.12s' "$head_sha")" --parent "$(printf '%.12s' "$base_sha")"
			else
				set --
			fi
			"$bin" report ${_mm_mode:+--mode "$_mm_mode"} "$@" "base=base-1/$_mm_f" "head=head/$_mm_f" \
				"base=base-2/$_mm_f"
		) >"$_mm_out" 2>"$SCRATCH/report.err" || say "report of $_mm_row: $(tail -n 1 "$SCRATCH/report.err")"
		sed "s|^|$_mm_row: |" "$SCRATCH/report.err" >>"$work/mail/report.log"
	done <"$SCRATCH/moved"
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

# fail_run WHY: the run ends with 125: every build and boot stopped, DIR published with
# what was made (the logs) and failed.txt.
fail_run() {
	stop_children
	printf '%s\n' "$1" >"$work/failed.txt"
	publish || exit "$CANNOT"
	say "$out: the logs and what was made, failed.txt says why"
	exit "$CANNOT"
}

# print_table: ab.txt on stdout, and what the run left on stderr.
print_table() {
	cat "$out/ab.txt"
	say "$out: ab.tsv, ab.txt, the points (base-1, head, base-2), compare/, mail/ ($(find "$out/mail" -name '*.txt' | grep -c .) drafts), the logs"
	if [ -n "$trouble" ]; then
		say "compare could not judge: $trouble"
		exit "$CANNOT"
	fi
}
