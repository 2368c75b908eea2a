#!/bin/sh
# cost.sh: where a point's kernel instructions went, per function, exactly. The counter is a
# QEMU TCG plugin (plugin/cost.c) that counts every guest instruction executed inside the
# run's measured shares, between the markers uring-repro executes around them; this script
# builds it, checks that the QEMU at hand accepts it, and turns its counts into the point's
# `# cost:` lines with the kernel's System.map. docs/cost.md has the method and the format.
#
#   cost.sh plugin --map SYSTEM.MAP --out COUNTS [--qemu QEMU] [--accel A] [--arch A] [--cpus N]
#       checks the map and the boot's settings, builds the plugin if needed, asks QEMU
#       whether it accepts it, and prints the value of QEMU's -plugin option for a boot
#       that writes COUNTS (scripts/boot-point.sh --cost runs this before the boot)
#   cost.sh lines --map SYSTEM.MAP --counts COUNTS --point POINT
#       prints the `# cost:` lines of that boot (boot-point.sh appends them to the point)
#   cost.sh build
#       builds the plugin (target/cost/cost.so) if its sources are newer, prints its path
#
# Exit: 0; 2 a usage error or a file that is not what it should be; 125 this machine cannot
# count (no gcc, a QEMU that refuses the plugin) or the counts cannot be turned into lines.
#
# POSIX sh (checked with dash). Needs gcc, qemu-system-x86_64 and the usual POSIX tools.
set -eu

PROG=cost.sh
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(dirname "$HERE")
SRC=$REPO/plugin
SO=$REPO/target/cost/cost.so
# The decimals of instructions per pair in a `fn` line (the exact count is beside it).
DECIMALS=3
# say, usage_error: what the scripts share.
. "$HERE/common.sh"

cannot() {
	say "$*"
	exit 125
}

usage() {
	awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"
}

# --map: a readable System.map with text symbols in it.
check_map() {
	[ -n "$1" ] || usage_error "--map SYSTEM.MAP is required"
	{ [ -f "$1" ] && [ -r "$1" ]; } || usage_error "--map: not a readable file: $1 (the System.map of the kernel booted: build-kernel.sh keeps it beside the image)"
	if grep -q '^f\{16\} B The real System.map is in' "$1"; then
		usage_error "--map: $1 is the placeholder Debian's kernel packages ship (the real map is in the -dbg package); the kernel's own build writes System.map at the top of its object directory"
	fi
	grep -q '^[0-9a-f]\{16\} [Tt] ' "$1" ||
		usage_error "--map: $1 has no x86_64 text symbols (not a System.map of a 64-bit kernel?)"
}

# Builds the plugin when it is missing or older than its sources; prints its path.
build() {
	command -v gcc >/dev/null 2>&1 || cannot "gcc not found: the counter is built from plugin/cost.c with it (Debian: gcc)"
	stale=
	[ -f "$SO" ] || stale=1
	for f in "$SRC"/cost.c "$SRC"/api.h "$SRC"/api-types.h; do
		[ -n "$stale" ] || [ ! "$f" -nt "$SO" ] || stale=1
	done
	if [ -n "$stale" ]; then
		mkdir -p "$(dirname "$SO")"
		tmp=$SO.$$
		gcc -shared -fPIC -fvisibility=hidden -O2 -std=c11 -Wall -Wextra -Werror \
			-o "$tmp" "$SRC/cost.c" || {
			rm -f "$tmp"
			cannot "could not build the counter from $SRC/cost.c"
		}
		mv -f "$tmp" "$SO"
	fi
	printf '%s\n' "$SO"
}

# Whether QEMU loads the plugin: the plugin says so on stderr in probe mode and refuses to
# install, so QEMU stops at once.
probe() {
	command -v "$1" >/dev/null 2>&1 || cannot "$1 not found (Debian: qemu-system-x86)"
	said=$("$1" -machine none -nodefaults -display none -plugin "$SO,probe=on" 2>&1 </dev/null) || true
	case $said in
	*"uring-repro cost plugin: probe: accepted"*) ;;
	*)
		say "$1 does not accept the cost counter ($SO): it needs a QEMU built with TCG plugins (--enable-plugins) that takes plugin API version 1 (Debian 12's QEMU 7.2 does; 9.0 and later want 2 or more). QEMU said:"
		printf '%s\n' "$said" | sed 's/^/  | /' >&2
		exit 125
		;;
	esac
}

# options CMD ALLOWED ARGS...: sets each --NAME VALUE of ARGS as the variable NAME, if
# --NAME is one of the words of ALLOWED.
options() {
	cmd=$1 allowed=$2
	shift 2
	while [ $# -gt 0 ]; do
		case " $allowed " in
		*" $1 "*) ;;
		*) usage_error "$cmd: unknown argument '$1'" ;;
		esac
		[ $# -ge 2 ] || usage_error "$1 needs a value"
		eval "${1#--}=\$2"
		shift 2
	done
}

cmd_plugin() {
	map="" out="" qemu=qemu-system-x86_64 accel=icount arch=x86_64 cpus=1
	options plugin "--map --out --qemu --accel --arch --cpus" "$@"
	check_map "$map"
	[ -n "$out" ] || usage_error "--out COUNTS is required"
	[ ! -e "$out" ] || usage_error "--out: $out exists"
	case $arch in
	x86_64) ;;
	*) usage_error "--cost: x86_64 guests only (uring-repro's markers are x86_64 instructions), not $arch" ;;
	esac
	case $accel in
	icount) ;;
	tcg) say "note: --cost under plain TCG: the counts are exact, but timer interrupts land at wall-clock times, so they differ from boot to boot; --accel icount makes them repeatable" ;;
	*) usage_error "--cost counts under QEMU's TCG only (--accel icount or tcg), not --accel $accel" ;;
	esac
	[ "$cpus" = 1 ] || usage_error "--cost counts one vCPU only (its counters are shared by all), not --cpus $cpus"
	case $SO$out in
	*,*) usage_error "--cost: QEMU's -plugin option cannot take a path with a comma: $SO or $out" ;;
	esac
	build >/dev/null
	probe "$qemu"
	printf '%s\n' "$SO,out=$out"
}

# The `# cost:` lines: the point gives each series' name, measured rounds and pairs (its
# mean rows, in the order of the series), the counts the windows and the instructions, the
# map the functions. Every consistency check that fails is an error, never a short table.
cmd_lines() {
	map="" counts="" point=""
	options lines "--map --counts --point" "$@"
	check_map "$map"
	for f in "$counts" "$point"; do
		{ [ -n "$f" ] && [ -f "$f" ] && [ -r "$f" ]; } || usage_error "--counts and --point: readable files, not '$f'"
	done
	head -n 1 "$counts" | grep -q '^# uring-repro cost counts: ' ||
		cannot "$counts: not the cost counter's output (empty: QEMU did not exit cleanly?)"
	sha=$(sha256sum "$map" | cut -d ' ' -f 1)
	api=$(head -n 1 "$counts" | sed -n 's/.*qemu plugin api \([0-9]*\).*/\1/p')

	# Series, from the point: "INDEX NAME ROUNDS PAIRS", in table order.
	series=$(awk '
		/^# uring-repro / { for (i = 1; i <= NF; i++) if ($i ~ /^profile=/) profile = substr($i, 9) }
		/^#/ || !NF { next }
		# s0-like table: round pairs ns_per_pair semantic_pass
		$1 ~ /^[0-9]+$/ { rounds[profile]++; if (!(profile in at)) { at[profile] = n; names[n++] = profile }; next }
		$1 == "mean" { pairs[profile] = $2; next }
		# pollwake-like table: profile round pairs ...
		$2 ~ /^[0-9]+$/ { rounds[$1]++; if (!($1 in at)) { at[$1] = n; names[n++] = $1 }; next }
		$2 == "mean" { pairs[$1] = $3; next }
		END { for (i = 0; i < n; i++) print i, names[i], rounds[names[i]], pairs[names[i]] + 0 }
	' "$point")
	[ -n "$series" ] || cannot "$point: no measured rounds"

	# Everything checked and summed in one pass over the counts, then the functions.
	LC_ALL=C awk -v series="$series" -v counts="$counts" -v point="$point" '
		function fail(why) { print "cost.sh: " why > "/dev/stderr"; bad = 1; exit 125 }
		BEGIN {
			ns = split(series, l, "\n")
			for (i = 1; i <= ns; i++) {
				split(l[i], f, " ")
				name[f[1]] = f[2]; rounds[f[1]] = f[3]; pairs[f[1]] = f[4]
			}
		}
		$1 == "windows" {
			w = $2
			if (w == 0)
				fail(counts ": the counter saw no measured round (the guest binary has no markers: an older uring-repro, or not an x86_64 build?)")
			if ($3 != "unbalanced=0" || $4 != "open_at_exit=0")
				fail(counts ": the markers did not pair up (" $3 " " $4 ")")
		}
		$1 == "series" {
			k = $2
			if (!(k in name))
				fail(counts ": windows for series " k ", which " point " does not have")
			split($3, a, "="); win[k] = a[2]
			split($4, a, "="); user[k] = a[2]
			split($5, a, "="); kern[k] = a[2]
			if (win[k] != rounds[k])
				fail(counts ": " win[k] " windows of " name[k] ", but " point " has " rounds[k] " measured rounds of it")
			if (pairs[k] <= 0)
				fail(point ": no mean row for " name[k])
		}
		$1 == "insn" { sum[$3] += $4 }
		END {
			if (bad) exit 125
			if (w == "") fail(counts ": no windows line (cut short?)")
			for (k in name) {
				if (!(k in win)) fail(counts ": no window of " name[k])
				if (sum[k] != kern[k])
					fail(counts ": the instruction lines of " name[k] " add up to " sum[k] ", not " kern[k])
			}
		}
	' "$counts"

	# Text symbols, one name per address (of aliases, the one perf's choose_best_symbol()
	# keeps: not weak before weak, global before local, the fewest leading underscores, the
	# longest name; then the first in byte order), then the instructions, merged in address
	# order: each instruction belongs to the last symbol at or below it.
	{
		LC_ALL=C awk '
			$2 !~ /^[TtWw]$/ { next }
			{
				u = match($3, /[^_]/) - 1
				r = sprintf("%d %03d %04d %s", index("TtWw", $2), u, 9999 - length($3), $3)
				if (!($1 in best) || r < best[$1]) { best[$1] = r; nm[$1] = $3 }
			}
			END { for (a in nm) print a, 0, nm[a] }
		' "$map"
		awk '$1 == "insn" { print $2, 1, $3, $4 }' "$counts"
	} | LC_ALL=C sort -k1,1 -k2,2n | LC_ALL=C awk -v series="$series" -v counts="$counts" \
		-v sha="$sha" -v api="$api" -v dec="$DECIMALS" '
		BEGIN {
			ns = split(series, l, "\n")
			for (i = 1; i <= ns; i++) {
				split(l[i], f, " ")
				name[f[1]] = f[2]; pairs[f[1]] = f[4]
			}
			fn = "[unknown]"
			while ((getline line < counts) > 0) {
				split(line, f, " ")
				if (f[1] != "series") continue
				split(f[3], a, "="); win[f[2]] = a[2]
				split(f[4], a, "="); user[f[2]] = a[2]
				split(f[5], a, "="); kern[f[2]] = a[2]
			}
		}
		$2 == 0 { fn = $3; next }
		{ insns[$3, fn] += $4; if (!(($3, fn) in seen)) { seen[$3, fn] = 1; nfn[$3]++ } }
		END {
			printf "# cost: method counter=qemu-tcg-plugin api=%s window=timed-spans unit=guest-instructions map_sha256=%s\n", api, sha
			for (k = 0; k < ns; k++) {
				if (!(k in win)) continue
				printf "# cost: series %s windows=%d pairs=%.0f user=%.0f kernel=%.0f functions=%d user_per_pair=%.*f kernel_per_pair=%.*f\n", \
					name[k], win[k], pairs[k], user[k], kern[k], nfn[k], dec, user[k] / pairs[k], dec, kern[k] / pairs[k]
				fflush()
				for (key in insns) {
					split(key, p, SUBSEP)
					if (p[1] == k) printf "%.0f %s\n", insns[key], p[2] | "LC_ALL=C sort -k1,1nr -k2,2"
				}
				close("LC_ALL=C sort -k1,1nr -k2,2")
			}
		}
	' | LC_ALL=C awk -v series="$series" -v dec="$DECIMALS" '
		BEGIN {
			ns = split(series, l, "\n")
			for (i = 1; i <= ns; i++) { split(l[i], f, " "); pairs[f[2]] = f[4] }
		}
		/^# cost: series / { cur = $4; print; next }
		/^# cost: / { print; next }
		{ printf "# cost: fn %s %.*f %.0f %s\n", cur, dec, $1 / pairs[cur], $1, $2 }
	'
}

[ $# -gt 0 ] || usage_error "a command is required: plugin, lines or build"
cmd=$1
shift
case $cmd in
-h | --help) usage ;;
plugin) cmd_plugin "$@" ;;
lines) cmd_lines "$@" ;;
build) build ;;
*) usage_error "unknown command '$cmd'" ;;
esac
