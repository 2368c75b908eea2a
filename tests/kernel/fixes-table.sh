#!/usr/bin/env bash
# fixes-table.sh: docs/fixes.md's table of the fix series, printed from scripts/ab.sh's
# tables and the published figures, so that no figure in it is typed by hand.
#
# usage: tests/kernel/fixes-table.sh CHILD FIX1 FIX2
#   CHILD  ab.tsv of the parent against the child (tests/kernel/run.sh: ab-child)
#   FIX1   ab.tsv of the child against fix1 (ab-fix1)
#   FIX2   ab.tsv of fix1 against fix2 (ab-fix2)
# The published time per pair and the locked instructions the source says each step moves
# come from kernel/fixes-published.tsv. The step "fixes 1+2" is FIX1's base against FIX2's
# head. Rows: s0 (private futexes) and s0:shared. Then a table of every profile: each step's
# change, its locked change and ab's verdict. Last, one line: whether every kernel's figure
# is the same in the two tables it is in (the child is FIX1's base and CHILD's head; fix1
# FIX2's base and FIX1's head), as exact boots must make it.
#
# Output: Markdown on stdout. Exit status: 0; 1 when a table lacks a row or a
# column it needs; 2 on a usage error.
set -euo pipefail
PROG=fixes-table.sh
PUBLISHED=$(dirname -- "${BASH_SOURCE[0]}")/../../kernel/fixes-published.tsv

if (($# != 3)); then
	printf 'usage: %s CHILD-AB-TSV FIX1-AB-TSV FIX2-AB-TSV\n' "$PROG" >&2
	exit 2
fi
for f in "$PUBLISHED" "$@"; do
	[[ -r $f ]] || {
		printf '%s: %s: cannot read\n' "$PROG" "$f" >&2
		exit 2
	}
done

awk -F'\t' -v prog="$PROG" '
	function die(msg) { printf "%s: %s\n", prog, msg > "/dev/stderr"; bad = 1; exit 1 }
	# pct(d, b): the change d against b, in percent, signed, 3 decimals.
	function pct(d, b) { return sprintf("%+.3f%%", d / b * 100) }
	function or_none(s) { return s == "" ? "not in this table" : s }
	function signed(v, f) { v = sprintf(f, v); return v ~ /^-0\.0*$/ ? substr(v, 2) : (v + 0 > 0 ? "+" v : v) }
	FNR == 1 && FILENAME != ARGV[1] {
		t++
		for (i = 1; i <= NF; i++) col[t, $i] = i
		for (n in need) if (!((t, n) in col)) die(FILENAME ": no column " n)
		next
	}
	FILENAME == ARGV[1] {
		if ($0 ~ /^#/ || $1 == "step") next
		pub[$1, $2] = $3; src[$1, $2] = $4
		next
	}
	# Every row, for the table of all profiles (in CHILD'"'"'s order).
	{
		if (t == 1) order[++rows] = $1
		unit[$1] = $col[t, "unit"]
		cell[t, $1] = $col[t, "delta"] == "NA" ? $col[t, "verdict"] : \
			signed($col[t, "delta"], "%.3f") " (" ($col[t, "locked_delta"] == "NA" ? "-" : \
			signed($col[t, "locked_delta"], "%.3f")) ") " $col[t, "verdict"]
	}
	$1 == "s0" || $1 == "s0:shared" {
		f = $1 == "s0" ? "private" : "shared"
		base[t, f] = $col[t, "base"]; head[t, f] = $col[t, "head"]
		lbase[t, f] = $col[t, "locked_base"]; lhead[t, f] = $col[t, "locked_head"]
	}
	BEGIN {
		split("unit base head delta locked_base locked_head locked_delta verdict", n_, " ")
		for (i in n_) need[n_[i]] = 1
	}
	END {
		if (bad) exit 1
		for (k = 1; k <= 3; k++) for (i = 1; i <= 2; i++) {
			f = i == 1 ? "private" : "shared"
			if (!((k, f) in base)) die(ARGV[k + 1] ": no s0 row for " f " futexes")
		}
		# The steps: their tables, base from one, head from another.
		split("child fix1 fixes12 fix2", step, " ")
		from["child"] = 1; to["child"] = 1; name["child"] = "079afb081c42 (child vs parent)"
		from["fix1"] = 2; to["fix1"] = 2; name["fix1"] = "fix 1 (vs child)"
		from["fixes12"] = 2; to["fixes12"] = 3; name["fixes12"] = "fixes 1+2 (vs child)"
		from["fix2"] = 3; to["fix2"] = 3; name["fix2"] = "fix 2 (fixes 1+2 vs fix 1)"
		print "| step | futex | time per pair, published | instructions per pair, ours | change | % | time % / instructions % | locked, from the source | locked, counted |"
		print "| --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |"
		for (s = 1; s <= 4; s++) for (i = 1; i <= 2; i++) {
			st = step[s]; f = i == 1 ? "private" : "shared"
			b = base[from[st], f]; h = head[to[st], f]; d = h - b
			p = pub[st, f]; ratio = ""
			if (p != "-" && p != "") {
				r = (p + 0) / (d / b * 100)
				ratio = r < 0 ? "opposite signs" : sprintf("%.2f", r)
				p = p "%"
			} else p = ""
			lb = lbase[from[st], f]; lh = lhead[to[st], f]
			locked = lb == "NA" || lh == "NA" ? "not counted" : signed(lh - lb, "%.3f")
			printf "| %s | %s | %s | %.3f → %.3f | %s | %s | %s | %s | %s |\n", i == 1 ? name[st] : "", \
				f, p, b, h, signed(d, "%.3f"), pct(d, b), ratio, src[st, f], locked
		}
		# The kernels in two tables each.
		same = 1
		for (i = 1; i <= 2; i++) {
			f = i == 1 ? "private" : "shared"
			if (head[1, f] != base[2, f] || head[2, f] != base[3, f]) same = 0
		}
		# Every profile, each step: the change in instructions per pair (per the unit), the
		# change in locked instructions in brackets, and ab'"'"'s verdict.
		print ""
		print "| profile | unit (per) | child vs parent | fix 1 vs child | fix 2 vs fix 1 |"
		print "| --- | --- | ---: | ---: | ---: |"
		for (r = 1; r <= rows; r++)
			printf "| %s | %s | %s | %s | %s |\n", order[r], unit[order[r]], or_none(cell[1, order[r]]), \
				or_none(cell[2, order[r]]), or_none(cell[3, order[r]])
		print ""
		if (same) print "Every kernel booted in two of these runs (the child, fix 1) gave the same figures in both, to the sixth decimal."
		else printf "The kernels booted in two of these runs differ between them: child %s and %s, fix 1 %s and %s (private).\n", head[1, "private"], base[2, "private"], head[2, "private"], base[3, "private"]
	}' "$PUBLISHED" "$@"
