#!/bin/sh
# cost.sh: where a point's kernel instructions went, per function, exactly. The counter is a
# QEMU TCG plugin (plugin/cost.c) that counts every guest instruction executed inside each
# run's timed spans, between the markers uring-repro executes around them, and the locked
# ones, and adds them up per kernel function with the kernel's System.map; this script builds
# it and checks that the QEMU at hand accepts it; `uring-repro points --counts` turns a
# run's counts into its point's `# cost:` lines (boot-point.sh --cost runs both). docs/cost.md
# has the method and the formats; usage() the commands.
#
# POSIX sh (checked with dash). Needs gcc, qemu-system-x86_64 and the usual POSIX tools.
set -eu

# shellcheck disable=SC2034 # say (common.sh) names the script with it
PROG=cost.sh
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(dirname "$HERE")
SRC=$REPO/plugin
SO=$REPO/target/cost/cost.so
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
                  [--events LIST]
           checks the map and the boot's settings, builds the plugin if needed, asks QEMU
           whether it accepts it (and the map), and prints the value of QEMU's -plugin
           option for a boot that writes COUNTS (boot-point.sh --cost runs this before
           the boot). --cpus above 1 under --accel icount only (QEMU then runs every vCPU
           on one thread; plain TCG gives each its own, and the counters would race).
           --events: the kernel functions whose entries are counted, NAME:NAME:... (a name
           the map lacks is said and not watched), or none; default, these joined by colons:
           $(printf '%s' "$COST_EVENTS" | tr ':' ' ' | fold -s -w 78 | sed 's/ $//; 2,$s/^/           /')
       $PROG build
           builds the plugin (target/cost/cost.so) if its sources are newer, prints its path

The counts become a point's \`# cost:\` lines with \`uring-repro points --counts COUNTS
--map SYSTEM.MAP\` (docs/cost.md).

exit: 0; 2 a usage error or a file that is not what it should be; 125 this machine cannot
      count (no gcc, a QEMU that refuses the plugin).
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

# --events: none, or kernel symbol names (letters, digits, _ . $), colon-separated, each once.
check_events() {
	[ "$1" = none ] && return 0
	case $1 in
	'' | :* | *: | *::* | *[!A-Za-z0-9_.:\$]*)
		usage_error "--events: none, or kernel function names separated by colons (NAME:NAME:...), not '$1'"
		;;
	esac
	dup=$(printf '%s\n' "$1" | tr ':' '\n' | sort | uniq -d | head -n 1)
	[ -z "$dup" ] || usage_error "--events: $dup is named twice"
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

# probe QEMU MAP [EVENTS]: whether QEMU loads the plugin, and the plugin the map (and the
# events' names in it): the plugin says so on stderr in probe mode and refuses to install,
# so QEMU stops at once. Names the map lacks are said here, before the boot.
probe() {
	command -v "$1" >/dev/null 2>&1 || cannot "$1 not found (Debian: qemu-system-x86)"
	said=$("$1" -machine none -nodefaults -display none -plugin "$SO,probe=on,map=$2${3:+,events=$3}" 2>&1 </dev/null) || true
	case $said in
	*"uring-repro cost plugin: probe: accepted"*)
		missing=$(printf '%s\n' "$said" | sed -n 's/.*; events: [0-9]* watched, not in the map: \([^)]*\)).*/\1/p')
		[ -z "$missing" ] || [ "$missing" = none ] ||
			say "note: --events: not in $2, not counted: $missing"
		;;
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

option() { usage_error "plugin: unknown argument '$1'"; }

cmd_plugin() {
	map="" out="" qemu=qemu-system-x86_64 accel=icount arch=x86_64 cpus=1 events=$COST_EVENTS
	read_options '
	--map     map     path
	--out     out     new_file
	--qemu    qemu    text
	--accel   accel   text
	--arch    arch    text
	--cpus    cpus    positive
	--events  events  text
	' "$@"
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
	# Several vCPUs: the counters are shared, right only when one thread runs every vCPU in
	# turn, as QEMU does under icount (-accel tcg,thread=single); the plugin is told so.
	threads=""
	if [ "$cpus" != 1 ]; then
		[ "$accel" = icount ] || usage_error "--cost counts more than one vCPU under --accel icount only, where QEMU runs them all on one thread; under plain TCG each has a thread of its own and the counters, shared, would race (--cpus $cpus)"
		threads=single
	fi
	check_events "$events"
	[ "$events" != none ] || events=""
	map=$(realpath "$map")
	case $SO$out$map in
	*,*) usage_error "--cost: QEMU's -plugin option cannot take a path with a comma: $SO, $out or $map" ;;
	esac
	build >/dev/null
	probe "$qemu" "$map" "$events"
	printf '%s\n' "$SO,out=$out,map=$map,map_sha256=$(sha256 "$map")${events:+,events=$events}${threads:+,threads=$threads}"
}

sha256() {
	sha256sum "$1" | cut -d ' ' -f 1
}

[ $# -gt 0 ] || usage_error "a command is required: plugin or build"
cmd=$1
shift
case $cmd in
-h | --help) usage ;;
plugin) cmd_plugin "$@" ;;
build) build ;;
*) usage_error "unknown command '$cmd'" ;;
esac
