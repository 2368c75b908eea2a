#!/bin/sh
# cost.sh: where a point's kernel instructions went, per function, exactly. The counter is a
# QEMU TCG plugin (plugin/cost.c) that counts every guest instruction executed inside each
# run's timed spans, between the markers uring-repro executes around them, and the locked
# ones, and adds them up per kernel function with the kernel's System.map; this script builds
# it, checks that the QEMU at hand accepts it, and turns one run's counts into its point's
# `# cost:` lines. docs/cost.md has the method and the formats; usage() the commands.
#
# POSIX sh (checked with dash). Needs gcc, qemu-system-x86_64 and the usual POSIX tools.
set -eu

# shellcheck disable=SC2034 # say (common.sh) names the script with it
PROG=cost.sh
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(dirname "$HERE")
SRC=$REPO/plugin
SO=$REPO/target/cost/cost.so
# The decimals of instructions per pair in a `fn` line (the exact count is beside it).
DECIMALS=3
# say, usage_error: what the scripts share.
# shellcheck source=common.sh source-path=SCRIPTDIR
. "$HERE/common.sh"

cannot() {
	say "$*"
	exit 125
}

usage() {
	cat <<EOF
usage: $PROG plugin --map SYSTEM.MAP --out COUNTS [--qemu QEMU] [--accel A] [--arch A] [--cpus N]
           checks the map and the boot's settings, builds the plugin if needed, asks QEMU
           whether it accepts it (and the map), and prints the value of QEMU's -plugin
           option for a boot that writes COUNTS (boot-point.sh --cost runs this before
           the boot)
       $PROG lines --counts COUNTS --point POINT [--run N] [--map SYSTEM.MAP]
           prints the \`# cost:\` lines of the point of run N of that boot (the Nth
           uring-repro run under the counter, from 1; without --run, the boot's only run);
           with --map, first checks that it is the map the counts were made with
           (boot-point.sh appends the lines to the point)
       $PROG build
           builds the plugin (target/cost/cost.so) if its sources are newer, prints its path

exit: 0; 2 a usage error or a file that is not what it should be; 125 this machine cannot
      count (no gcc, a QEMU that refuses the plugin) or the counts cannot be turned into
      lines.
EOF
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
	for f in "$SRC"/*.c "$SRC"/*.h; do
		[ -n "$stale" ] || [ -z "$(find "$f" -newer "$SO")" ] || stale=1
	done
	if [ -n "$stale" ]; then
		mkdir -p "$(dirname "$SO")"
		tmp=$SO.$$
		gcc -shared -fPIC -fvisibility=hidden -O2 -std=c11 -Wall -Wextra -Werror \
			-o "$tmp" "$SRC/cost.c" "$SRC/functions.c" "$SRC/locked.c" || {
			rm -f "$tmp"
			cannot "could not build the counter from $SRC/cost.c"
		}
		mv -f "$tmp" "$SO"
	fi
	printf '%s\n' "$SO"
}

# probe QEMU MAP: whether QEMU loads the plugin, and the plugin the map: the plugin says so
# on stderr in probe mode and refuses to install, so QEMU stops at once.
probe() {
	command -v "$1" >/dev/null 2>&1 || cannot "$1 not found (Debian: qemu-system-x86)"
	said=$("$1" -machine none -nodefaults -display none -plugin "$SO,probe=on,map=$2" 2>&1 </dev/null) || true
	case $said in
	*"uring-repro cost plugin: probe: accepted"*) ;;
	*"uring-repro cost plugin: $2"*)
		usage_error "--map: the counter cannot read it: $(printf '%s\n' "$said" | sed -n 's/^uring-repro cost plugin: //p' | head -n 1)"
		;;
	*)
		say "$1 does not accept the cost counter ($SO): it needs a QEMU built with TCG plugins (--enable-plugins) that takes plugin API version 1 (Debian 12's QEMU 7.2 does; 9.0 and later want 2 or more). QEMU said:"
		printf '%s\n' "$said" | sed 's/^/  | /' >&2
		exit 125
		;;
	esac
}

cmd_plugin() {
	map="" out="" qemu=qemu-system-x86_64 accel=icount arch=x86_64 cpus=1
	while [ $# -gt 0 ]; do
		case $1 in
		--map) opt_value map path "$@" ;;
		--out) opt_value out new_file "$@" ;;
		--qemu) opt_value qemu text "$@" ;;
		--accel) opt_value accel text "$@" ;;
		--arch) opt_value arch text "$@" ;;
		--cpus) opt_value cpus positive "$@" ;;
		*) usage_error "plugin: unknown argument '$1'" ;;
		esac
		shift 2
	done
	check_map "$map"
	[ -n "$out" ] || usage_error "--out COUNTS is required"
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
	map=$(realpath "$map")
	case $SO$out$map in
	*,*) usage_error "--cost: QEMU's -plugin option cannot take a path with a comma: $SO, $out or $map" ;;
	esac
	build >/dev/null
	probe "$qemu" "$map"
	printf '%s\n' "$SO,out=$out,map=$map,map_sha256=$(sha256 "$map")"
}

sha256() {
	sha256sum "$1" | cut -d ' ' -f 1
}

# The `# cost:` lines of one run: the point gives each series' name, measured rounds and
# pairs (its mean rows, in the order of the series); the run's section of the counts, its
# windows and its instructions, all and locked, per series and per function. Both files are
# read once, by one awk program, which checks everything before it prints anything: every
# consistency check that fails is an error, never a short table.
cmd_lines() {
	map="" counts="" point="" run=""
	while [ $# -gt 0 ]; do
		case $1 in
		--map) opt_value map path "$@" ;;
		--counts) opt_value counts file "$@" ;;
		--point) opt_value point file "$@" ;;
		--run) opt_value run positive "$@" ;;
		*) usage_error "lines: unknown argument '$1'" ;;
		esac
		shift 2
	done
	[ -n "$counts" ] || usage_error "--counts COUNTS is required"
	[ -n "$point" ] || usage_error "--point POINT is required"
	sha=""
	if [ -n "$map" ]; then
		check_map "$map"
		sha=$(sha256 "$map")
	fi
	LC_ALL=C awk -v counts="$counts" -v point="$point" -v want="$run" -v map="$map" \
		-v map_sha="$sha" -v dec="$DECIMALS" "$LINES_AWK" </dev/null
}

# The program of `lines`: everything happens in BEGIN, reading the point, then the counts,
# with getline. Exit 125 with one line for counts that cannot be turned into lines, 2 for a
# missing or ambiguous --run.
LINES_AWK='
function fail(why, code) {
	printf "%s: %s\n", "cost.sh", why > "/dev/stderr"
	exit code ? code : 125
}
# What is wrong with the run read, told once it is known to be the run asked for.
function defer(why) { if (deferred == "") deferred = why }
# key=value words of a line (from the word at "from" on) into the array kv.
function words(line, from, kv,    f, n, i, eq) {
	n = split(line, f, " ")
	for (i = from; i <= n; i++) {
		eq = index(f[i], "=")
		if (eq) kv[substr(f[i], 1, eq - 1)] = substr(f[i], eq + 1)
	}
}
function per_pair(n, k) { return sprintf("%.*f", dec, n / pairs[k]) }
# Function lines: WORD SERIES COUNT NAME, the most first, ties by name in byte order.
function function_line(word, f,    k) {
	k = f[2]
	if (!(k in sname)) defer(counts ": run " run ": a " word " line of series " k ", which has no series line")
	if (nfl[word, k] && (f[3] > last[word, k] + 0 || f[3] == last[word, k] + 0 && f[4] <= lastname[word, k]))
		defer(counts ": run " run ": the " word " lines of series " k " are out of order at " f[4])
	last[word, k] = f[3]; lastname[word, k] = f[4]
	sum[word, k] += f[3]
	fl[word, k, ++nfl[word, k]] = f[3] " " f[4]
}
BEGIN {
	# The point: its series, in table order, with their measured rounds and pairs.
	ns = 0
	while ((got = getline line < point) > 0) {
		sub(/\r$/, "", line)
		if (line ~ /^# uring-repro /) {
			n = split(line, f, " ")
			for (i = 1; i <= n; i++) if (f[i] ~ /^profile=/) profile = substr(f[i], 9)
			continue
		}
		if (line ~ /^#/ || line !~ /[^ \t]/) continue
		split(line, f, /[ \t]+/)
		if (f[1] ~ /^[0-9]+$/) name = profile    # one series: round pairs ns_per_pair pass
		else if (f[1] == "mean") { pairs_of[profile] = f[2]; continue }
		else if (f[2] ~ /^[0-9]+$/) name = f[1]  # several: series round pairs ...
		else if (f[2] == "mean") { pairs_of[f[1]] = f[3]; continue }
		else continue
		if (!(name in at)) { at[name] = ns; names[ns++] = name }
		rounds[at[name]]++
	}
	if (got < 0) fail(point ": cannot be read")
	if (ns == 0) fail(point ": no measured rounds")
	for (k = 0; k < ns; k++) pairs[k] = pairs_of[names[k]] + 0

	# The counts: the header, the map, then one section a run, then the end line.
	if ((getline line < counts) <= 0) fail(counts ": empty (QEMU did not exit cleanly?)")
	if (line ~ /^# uring-repro cost counts: /)
		fail(counts ": counts of an older counter (no run sections, no locked instructions): boot again with this one")
	if (line !~ /^# uring-repro cost counts format=2: /)
		fail(counts ": not the cost counter'"'"'s output")
	api = line; sub(/.*qemu plugin api /, "", api); sub(/[^0-9].*/, "", api)
	locked = line; sub(/.*locked=/, "", locked); sub(/[^a-z0-9-].*/, "", locked)
	if (api == "" || locked == "") fail(counts ": a header without the plugin API or the locked kind")
	runs = 0; run = 0; ended = 0
	while ((got = getline line < counts) > 0) {
		if (ended) fail(counts ": lines after the end line")
		n = split(line, f, " ")
		if (f[1] == "map") {
			delete kv; words(line, 2, kv)
			sha = kv["sha256"]
			if (map_sha != "" && sha != map_sha)
				fail(counts ": made with another System.map (SHA-256 " sha "), not " map)
			continue
		}
		if (f[1] == "run") {
			runs++
			if (f[2] != runs) fail(counts ": run " f[2] " where run " runs " was due")
			mine = want == "" ? runs == 1 : f[2] == want
			if (!mine) continue
			run = f[2]
			delete kv; words(line, 3, kv)
			if (kv["windows"] + 0 == 0)
				defer(counts ": run " run ": the counter saw no measured round (the guest binary has no markers: an older uring-repro, or not an x86_64 build?)")
			if (kv["unbalanced"] + 0 != 0 || kv["open_at_end"] + 0 != 0)
				defer(counts ": run " run ": the markers did not pair up (unbalanced=" kv["unbalanced"] " open_at_end=" kv["open_at_end"] ")")
			continue
		}
		if (f[1] == "end") {
			ended = 1
			delete kv; words(line, 2, kv)
			if (kv["runs"] + 0 != runs) fail(counts ": the end line says " kv["runs"] " runs, the sections " runs)
			stray = kv["stray_windows"]
			continue
		}
		if (!mine) continue
		if (f[1] == "window") {
			delete kv; words(line, 3, kv)
			k = kv["series"]
			wn[k]++; wuser[k] += kv["user"]; wkern[k] += kv["kernel"]
		} else if (f[1] == "series") {
			k = f[2]
			if (k in sname) defer(counts ": run " run ": two series lines of series " k)
			if (!(k < ns)) defer(counts ": run " run ": windows of series " k ", which " point " does not have")
			sname[k] = names[k]
			delete kv; words(line, 3, kv)
			for (w in kv) s[k, w] = kv[w]
		} else if (f[1] == "fn" || f[1] == "locked") {
			function_line(f[1], f)
		} else {
			defer(counts ": run " run ": an unknown line: " f[1])
		}
	}
	if (got < 0) fail(counts ": cannot be read")
	if (!ended) fail(counts ": no end line (cut short: QEMU did not exit cleanly?)")
	if (sha == "") fail(counts ": no map line")
	if (runs == 0 && stray > 0)
		fail(counts ": " stray " windows but no run started: a uring-repro without the run marker")
	if (runs == 0) fail(counts ": no uring-repro run under the counter")
	if (want == "" && runs > 1)
		fail(counts ": " runs " runs: say which one this point is with --run N (1 to " runs ")", 2)
	if (run == 0) fail(counts ": --run " want ", but there are " runs " runs", 2)
	if (deferred != "") fail(deferred)

	# Every check, then the lines.
	for (k = 0; k < ns; k++) {
		nm = names[k]
		if (!(k in sname)) fail(counts ": run " run ": no window of " nm)
		if (s[k, "windows"] + 0 != rounds[k] + 0)
			fail(counts ": run " run ": " s[k, "windows"] " windows of " nm ", but " point " has " rounds[k] " measured rounds of it")
		if (pairs[k] <= 0) fail(point ": no mean row for " nm)
		if (wn[k] + 0 != s[k, "windows"] + 0 || wuser[k] + 0 != s[k, "user"] + 0 || wkern[k] + 0 != s[k, "kernel"] + 0)
			fail(counts ": run " run ": the window lines of " nm " are " wn[k] " adding up to user=" wuser[k] " kernel=" wkern[k] ", not the series line")
		if (nfl["fn", k] + 0 != s[k, "functions"] + 0 || sum["fn", k] + 0 != s[k, "kernel"] + 0)
			fail(counts ": run " run ": the fn lines of " nm " are " nfl["fn", k] + 0 " adding up to " sum["fn", k] + 0 ", not " s[k, "functions"] " adding up to " s[k, "kernel"])
		if (nfl["locked", k] + 0 != s[k, "locked_functions"] + 0 || sum["locked", k] + 0 != s[k, "kernel_locked"] + 0)
			fail(counts ": run " run ": the locked lines of " nm " are " nfl["locked", k] + 0 " adding up to " sum["locked", k] + 0 ", not " s[k, "locked_functions"] " adding up to " s[k, "kernel_locked"])
	}
	printf "# cost: method counter=qemu-tcg-plugin api=%s window=timed-spans unit=guest-instructions map_sha256=%s locked=%s\n", api, sha, locked
	for (k = 0; k < ns; k++) {
		printf "# cost: series %s windows=%d pairs=%.0f user=%s kernel=%s functions=%d user_per_pair=%s kernel_per_pair=%s user_locked=%s kernel_locked=%s kernel_locked_per_pair=%s\n", \
			names[k], s[k, "windows"], pairs[k], s[k, "user"], s[k, "kernel"], s[k, "functions"], \
			per_pair(s[k, "user"], k), per_pair(s[k, "kernel"], k), \
			s[k, "user_locked"], s[k, "kernel_locked"], per_pair(s[k, "kernel_locked"], k)
		for (i = 1; i <= nfl["fn", k]; i++) {
			split(fl["fn", k, i], f, " ")
			printf "# cost: fn %s %s %s %s\n", names[k], per_pair(f[1], k), f[1], f[2]
		}
		for (i = 1; i <= nfl["locked", k]; i++) {
			split(fl["locked", k, i], f, " ")
			printf "# cost: locked %s %s %s %s\n", names[k], per_pair(f[1], k), f[1], f[2]
		}
	}
	exit 0
}'

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
