#!/usr/bin/env bash
# Tests of the cost counter (docs/cost.md): the QEMU TCG plugin (plugin/cost.c), its
# hand-written API declarations against the QEMU Debian ships, scripts/cost.sh's probe and
# usage errors, and real boots: the plugin changes no figure of the point, its windows are
# the measured rounds, boot-point.sh --cost writes a point compare reads, locked
# instructions are counted the same whether or not the kernel unlocked its LOCK prefixes
# for one CPU, a boot of several runs keeps one section each, the events (entries into
# named functions) are what the workloads do, and two vCPUs are counted under the
# instruction clock (QEMU runs them on one thread) and refused otherwise. The parts that need no
# QEMU (the decoder, the mapping, the lines `uring-repro points --counts` makes) are
# tests/cost_counter.rs's (cargo test).
#
# usage(), below, names the options. --objdir: a built kernel's object directory, with
# a kernel with the io_uring futex opcodes (6.7 or later) that runs a point the same way on
# every boot under icount: tests/kernel/run.sh builds such kernels (tinyconfig + the
# fragment). Debian's own kernels will not do: their packages ship a placeholder System.map
# and their points vary from boot to boot under icount. Without it the boot cases skip.
# Output: one TAP-like line per case, then "N passed, N failed, N skipped". Exit 0 iff no
# case failed, 2 on a usage error. With CI set a case that would skip fails instead.
#
# What it fetches (with apt, into --cache, default /var/tmp/uring-repro-cost): the source
# package of the installed qemu-system-x86 (23 MB; only include/qemu/qemu-plugin.h is read),
# through a private apt state built from the host's own Debian sources (as deb-src), so the
# host's lists are neither needed nor touched. It installs gcc, binutils, xz-utils and
# qemu-system-x86 when missing.
set -Eeuo pipefail
# Output helpers, results (a skip fails under CI), apt, the ERR trap, HERE and REPO.
# shellcheck source=../lib/harness.sh
. "$(dirname -- "${BASH_SOURCE[0]}")/../lib/harness.sh"
COST=$REPO/scripts/cost.sh
FIX=$HERE/fixtures
readonly COST FIX
# A short run: enough rounds to compare windows with rounds, a few seconds under TCG.
readonly RUN=(--cycles 16 --rounds 3 --warmups 1 --cpu 0)
readonly BOOT_TIMEOUT=300

CACHE=${URING_REPRO_COST_CACHE:-/var/tmp/uring-repro-cost} KEEP="" BIN="" OBJDIR="" ONLY=()
usage() {
	cat <<EOF
usage: $0 [--bin PATH] [--objdir DIR] [--only NAME]... [--keep DIR] [--cache DIR] [--list]

  --bin PATH     the x86_64 uring-repro to boot (default: this checkout's release build)
  --objdir DIR   a built kernel's object directory (arch/x86/boot/bzImage and System.map
                 in it): without it the boot cases skip
  --only NAME    run only this case (repeatable; --list names them)
  --keep DIR     keep the work directory's files in DIR
  --cache DIR    the QEMU source fetched for its plugin header (default: $CACHE)
  --list         print the cases' names and exit
EOF
}
while (($#)); do
	case $1 in
	--bin) opt_value BIN exe "$@" ;;
	--objdir) opt_value OBJDIR dir "$@" ;;
	--only)
		opt_value only text "$@"
		ONLY+=("$only")
		;;
	--keep) opt_value KEEP new_dir "$@" ;;
	--cache) opt_value CACHE new_dir "$@" ;;
	--list) LIST=1; shift; continue ;;
	-h | --help) usage; exit 0 ;;
	*) usage_error "unknown argument '$1'" ;;
	esac
	shift 2
done
BIN=${BIN:-$REPO/target/release/uring-repro}

CASES=(build symbols api probe usage locked-vmlinux boot-unchanged boot-windows
	boot-point boot-point-errors boot-locked-smp boot-runs boot-events boot-smp)
if [[ -n ${LIST:-} ]]; then printf '%s\n' "${CASES[@]}"; exit 0; fi

# expect NAME WANT-STATUS ERE CMD...: CMD exits WANT-STATUS and its stderr, its lines
# joined by spaces, matches ERE.
expect() {
	local name=$1 want=$2 ere=$3 rc=0
	shift 3
	"$@" >"$WORK/out" 2>"$WORK/err" || rc=$?
	if [[ $rc != "$want" ]]; then
		FAIL_WHY="$name: exit $rc, want $want; stderr: $(head -c 400 "$WORK/err")"
		return 1
	fi
	if [[ -n $ere ]] && ! tr '\n' ' ' <"$WORK/err" | grep -Eq -- "$ere"; then
		FAIL_WHY="$name: stderr does not match /$ere/: $(head -c 400 "$WORK/err")"
		return 1
	fi
}

work_dir "$KEEP" cost

# ---------------------------------------------------------------------------------------
# Tools and downloads.
ensure_tools() {
	local -a need=()
	command -v gcc >/dev/null || need+=(gcc)
	command -v nm >/dev/null || need+=(binutils)
	command -v qemu-system-x86_64 >/dev/null || need+=(qemu-system-x86)
	command -v xz >/dev/null || need+=(xz-utils)
	((${#need[@]})) || return 0
	apt_install "$WORK/apt-install.log" "${need[@]}" || exit 1
}

# A private apt state whose sources are the host's Debian sources, as deb-src.
APT=()
apt_state() {
	((${#APT[@]})) && return 0
	local d=$CACHE/apt f
	mkdir -p "$d/lists/partial" "$d/cache/archives/partial" "$d/sources.list.d"
	[[ -e $d/status ]] || : >"$d/status"
	: >"$d/sources.list"
	if [[ -r /etc/apt/sources.list ]]; then
		sed -n 's/^[ \t]*deb\([ \t]\)/deb-src\1/p' /etc/apt/sources.list >"$d/sources.list"
	fi
	rm -f "$d"/sources.list.d/*
	for f in /etc/apt/sources.list.d/*.sources; do
		[[ -r $f ]] || continue
		sed 's/^Types:.*/Types: deb-src/' "$f" >"$d/sources.list.d/${f##*/}"
	done
	APT=(-o "Dir::Etc::SourceList=$d/sources.list" -o "Dir::Etc::SourceParts=$d/sources.list.d"
		-o "Dir::State::Lists=$d/lists" -o "Dir::State::status=$d/status" -o "Dir::Cache=$d/cache"
		-o Acquire::Languages=none)
	if [[ -z $(find "$d/updated" -mmin -360 2>/dev/null) ]]; then
		note "apt-get update (private state: deb-src of the host's sources)"
		apt-get -q "${APT[@]}" update >"$d/update.log" 2>&1 && touch "$d/updated" || true
	fi
}

# The plugin header of the installed QEMU's source package: prints its path.
qemu_header() {
	local ver dir
	ver=$(dpkg-query -W -f '${source:Version}' qemu-system-x86 2>/dev/null) || {
		echo "qemu-system-x86 is not a Debian package here" >&2
		return 1
	}
	dir=$CACHE/qemu-source/$ver
	if [[ ! -s $dir/qemu-plugin.h ]]; then
		apt_state
		rm -rf "$dir.dl"
		mkdir -p "$dir.dl"
		if ! (cd "$dir.dl" && apt-get -q "${APT[@]}" source --download-only "qemu=$ver") >"$dir.dl/log" 2>&1; then
			echo "apt-get source --download-only qemu=$ver failed: $(grep -m1 '^E:' "$dir.dl/log")" >&2
			return 1
		fi
		mkdir -p "$dir"
		tar -xJf "$dir.dl"/qemu_*.orig.tar.xz -C "$dir.dl" --wildcards '*/include/qemu/qemu-plugin.h'
		# Debian's own patches must not touch the header (else the orig one is not theirs).
		if tar -tJf "$dir.dl"/qemu_*.debian.tar.xz | grep -q 'qemu-plugin'; then
			echo "a Debian patch of qemu $ver names the plugin header: check it by hand" >&2
			return 1
		fi
		mv "$dir.dl"/*/include/qemu/qemu-plugin.h "$dir/"
		rm -rf "$dir.dl"
	fi
	printf '%s\n' "$dir/qemu-plugin.h"
}

# point NAME [ARGS...]: boot-point.sh --accel icount into $WORK/NAME.point (the short s0
# run); status 0 iff a point came back.
point() {
	local name=$1
	shift
	"$REPO/scripts/boot-point.sh" --kernel "$KERNEL" -o "$WORK/$name.point" --accel icount \
		--bin "$BIN" --timeout "$BOOT_TIMEOUT" "$@" -- "${RUN[@]}" >/dev/null 2>"$WORK/$name.err"
}

# direct NAME FROM PLUGIN [WORD...]: the boot FROM.point was made of (its `# boot=` line:
# QEMU and its settings; its `# cmdline=`: the kernel's, WORDs added; the short s0 run's
# initramfs with an identity of its own, as boot-point.sh gives every boot), run by hand
# with -plugin PLUGIN; its console in $WORK/NAME.console, the report in $WORK/NAME.point,
# as boot-point.sh keeps it (`uring-repro points`).
direct() {
	local name=$1 from=$WORK/$2.point plugin=$3 cmdline
	local -a args
	shift 3
	read -ra args < <(sed -n 's/^# boot=[^ ]* [^ ]* //p' "$from")
	cmdline=$(sed -n 's/^# cmdline=//p' "$from")${*:+ $*}
	((${#args[@]})) && [[ -n $cmdline ]] || return 1
	rm -f "$WORK/$name.cpio"
	"$BIN" initramfs -o "$WORK/$name.cpio" --boot-id "$(cat /proc/sys/kernel/random/uuid)" \
		"${RUN[@]}" >/dev/null || return 1
	timeout "$BOOT_TIMEOUT" qemu-system-x86_64 "${args[@]}" -nodefaults -nographic -serial stdio \
		-no-reboot -kernel "$KERNEL" -initrd "$WORK/$name.cpio" -append "$cmdline" -plugin "$plugin" \
		</dev/null >"$WORK/$name.console" 2>"$WORK/$name.qemu" || true
	# (A boot that printed no point, selftest's, leaves none.)
	rm -f "$WORK/$name.point"
	"$BIN" points --console "$WORK/$name.console" -o "$WORK/$name.point" >/dev/null \
		2>"$WORK/$name.points" || true
}

# The report of a point: what a boot gives the same every time (not its boot ids, the
# host's and the kernel's, nor the `# boot=`, `# kernel_image_sha256=` and `# cost:` lines,
# which a boot by hand or without --cost has not).
report() {
	grep -v '^# boot=\|^# kernel_image_sha256=\|^# cost: ' "$WORK/$1.point" |
		sed 's/boot_id=[^ ]*//; s/BOOT_ID=[^ ]*//'
}

# ---------------------------------------------------------------------------------------
# The cases. Each sets FAIL_WHY and returns 1 on failure, or SKIP_WHY and returns 2.
case_build() {
	local so exported
	so=$("$COST" build) || { FAIL_WHY="cost.sh build failed"; return 1; }
	exported=$(nm -D --defined-only "$so" | awk '{ print $3 }' | sort | tr '\n' ' ')
	[[ $exported == "qemu_plugin_install qemu_plugin_version " ]] ||
		{ FAIL_WHY="the plugin exports '$exported', want qemu_plugin_install and qemu_plugin_version only"; return 1; }
}

case_symbols() {
	local so need have missing
	so=$("$COST" build)
	need=$(nm -D --undefined-only "$so" | awk '$2 ~ /^qemu_plugin_/ { print $2 }' | sort)
	have=$(nm -D --defined-only "$(command -v qemu-system-x86_64)" | awk '$3 ~ /^qemu_plugin_/ { print $3 }' | sort)
	[[ -n $need ]] || { FAIL_WHY="the plugin needs no qemu_plugin_ function?"; return 1; }
	missing=$(comm -23 <(printf '%s\n' "$need") <(printf '%s\n' "$have"))
	[[ -z $missing ]] || { FAIL_WHY="qemu-system-x86_64 does not export: $missing"; return 1; }
}

case_api() {
	local h bad=$WORK/api-bad
	h=$(qemu_header 2>"$WORK/err") || { SKIP_WHY="no QEMU plugin header: $(cat "$WORK/err")"; return 2; }
	gcc -std=c11 -Wall -Wextra -Werror -fsyntax-only -include "$h" -I"$REPO/plugin" \
		"$REPO/plugin/check-api.c" 2>"$WORK/err" ||
		{ FAIL_WHY="plugin/api.h against $h: $(grep -m3 error "$WORK/err")"; return 1; }
	gcc -std=c11 -Wall -Wextra -Werror -fsyntax-only -include "$h" "$REPO/plugin/cost.c" 2>"$WORK/err" ||
		{ FAIL_WHY="plugin/cost.c against $h: $(grep -m3 error "$WORK/err")"; return 1; }
	# The check can fail: one changed prototype, one changed field, one changed value.
	local change
	for change in 's/^size_t qemu_plugin_insn_size/int qemu_plugin_insn_size/' \
		's/int max_vcpus;/long max_vcpus;/' 's/QEMU_PLUGIN_CB_R_REGS,/QEMU_PLUGIN_CB_R_REGS = 5,/'; do
		rm -rf "$bad" && cp -r "$REPO/plugin" "$bad"
		sed -i "$change" "$bad/api.h" "$bad/api-types.h"
		if cmp -s "$bad/api.h" "$REPO/plugin/api.h" && cmp -s "$bad/api-types.h" "$REPO/plugin/api-types.h"; then
			FAIL_WHY="the control change '$change' changed nothing"
			return 1
		fi
		if gcc -std=c11 -Werror -fsyntax-only -include "$h" -I"$bad" "$bad/check-api.c" 2>/dev/null; then
			FAIL_WHY="check-api.c accepted a changed declaration ($change)"
			return 1
		fi
	done
}

# A QEMU that is not one that takes the plugin: a script saying what such a QEMU says.
fake_qemu() {
	printf '#!/bin/sh\necho "qemu-system-x86_64: %s" >&2\nexit 1\n' "$2" >"$WORK/$1"
	chmod +x "$WORK/$1"
}

case_probe() {
	local out=$WORK/probe.counts
	local sha
	sha=$(sha256sum "$FIX/System.map" | cut -d ' ' -f 1)
	# The default events, which the fixture map lacks: said before the boot, and passed on.
	expect probe 0 "note: --events: not in $FIX/System.map, not counted: $COST_EVENTS" \
		"$COST" plugin --map "$FIX/System.map" --out "$out" || return 1
	[[ $(cat "$WORK/out") == "$REPO/target/cost/cost.so,out=$out,map=$FIX/System.map,map_sha256=$sha,events=$COST_EVENTS" ]] ||
		{ FAIL_WHY="plugin printed '$(cat "$WORK/out")'"; return 1; }
	expect probe-events 0 '' "$COST" plugin --map "$FIX/System.map" --out "$out" --events io_work:helper --cpus 2 || return 1
	[[ $(cat "$WORK/out") == "$REPO/target/cost/cost.so,out=$out,map=$FIX/System.map,map_sha256=$sha,events=io_work:helper,threads=single" ]] ||
		{ FAIL_WHY="--events io_work:helper --cpus 2: plugin printed '$(cat "$WORK/out")'"; return 1; }
	expect probe-no-events 0 '' "$COST" plugin --map "$FIX/System.map" --out "$out" --events none || return 1
	[[ $(cat "$WORK/out") == "$REPO/target/cost/cost.so,out=$out,map=$FIX/System.map,map_sha256=$sha" ]] ||
		{ FAIL_WHY="--events none: plugin printed '$(cat "$WORK/out")'"; return 1; }
	fake_qemu qemu-noplugins "plugin interface not enabled in this build"
	expect no-plugins 125 'does not accept the cost counter.*plugin interface not enabled' \
		"$COST" plugin --map "$FIX/System.map" --out "$out" --qemu "$WORK/qemu-noplugins" || return 1
	fake_qemu qemu-api2 "Could not load plugin cost.so: plugin requires API version 1, but this QEMU supports only a minimum version of 2"
	expect api-2 125 'API version 1.*minimum version of 2' \
		"$COST" plugin --map "$FIX/System.map" --out "$out" --qemu "$WORK/qemu-api2" || return 1
	# The real plugin refuses two vCPUs on its own, unless told that one thread runs them.
	local said
	said=$(qemu-system-x86_64 -M pc -smp 2 -nodefaults -display none \
		-plugin "$REPO/target/cost/cost.so,probe=on" 2>&1 </dev/null) || true
	[[ $said == *"counts one vCPU, or several that QEMU runs on one thread"* ]] ||
		{ FAIL_WHY="-smp 2: QEMU said: $said"; return 1; }
	said=$(qemu-system-x86_64 -M pc -smp 2 -nodefaults -display none \
		-plugin "$REPO/target/cost/cost.so,probe=on,threads=single" 2>&1 </dev/null) || true
	[[ $said == *"probe: accepted"* ]] || { FAIL_WHY="-smp 2 threads=single: QEMU said: $said"; return 1; }
}

case_usage() {
	local out=$WORK/usage.counts m=$FIX/System.map
	expect no-map 2 'not a readable file: /nonexistent' "$COST" plugin --map /nonexistent --out "$out" || return 1
	expect not-a-map 2 'no x86_64 text symbols' "$COST" plugin --map "$FIX/point.txt" --out "$out" || return 1
	expect placeholder 2 'placeholder Debian' "$COST" plugin --map "$FIX/System.map-placeholder" --out "$out" || return 1
	expect cpus 2 'more than one vCPU under --accel icount only' "$COST" plugin --map "$m" \
		--out "$out" --cpus 2 --accel tcg || return 1
	local list
	for list in '' a,b a::b :a a: 'a b' a:b:a; do
		expect "events '$list'" 2 '--events: ' "$COST" plugin --map "$m" --out "$out" --events "$list" || return 1
	done
	expect events-without-cost 2 '--events: the events are the counter.s: with --cost MAP only' \
		"$REPO/scripts/boot-point.sh" --kernel "$m" -o "$WORK/usage.point" --events none -- --smoke || return 1
	expect kvm 2 "TCG only" "$COST" plugin --map "$m" --out "$out" --accel kvm || return 1
	expect arch 2 'x86_64 guests only' "$COST" plugin --map "$m" --out "$out" --arch aarch64 || return 1
	# The lines' own check of the map: a console whose run passed, so that they are made.
	{ grep -v '^# cost: ' "$FIX/point.txt"; echo 'uring-repro: exit 0'; } >"$WORK/usage.console"
	expect no-map-lines 2 'not a readable file' "$BIN" points --console "$WORK/usage.console" \
		-o "$WORK/usage.point" --counts "$FIX/counts.txt" --map /nonexistent || return 1
	# A map with text symbols that the plugin itself cannot read: its reason, before a boot.
	printf 'ffffffff81000000 T ok\nfffffffg81000100 t bad\n' >"$WORK/bad.map"
	expect bad-map 2 "counter cannot read it: .*bad.map:2: a text symbol whose address" \
		"$COST" plugin --map "$WORK/bad.map" --out "$out" || return 1
	[[ ! -e $out ]] || { FAIL_WHY="a counts file was written"; return 1; }
}

# The decoder of locked instructions against objdump, on every instruction of the kernel's
# text: the LOCK-prefixed ones are objdump's `lock` lines, the XCHGs with memory its xchg
# with a memory operand, and the unpatched image has no DS-prefixed lockable instruction,
# so the one-CPU rule can only match a LOCK prefix the kernel unlocked.
case_locked_vmlinux() {
	[[ -n $OBJDIR ]] || { SKIP_WHY="no --objdir: no kernel image to decode"; return 2; }
	[[ -f $OBJDIR/vmlinux ]] || { SKIP_WHY="no vmlinux in $OBJDIR"; return 2; }
	gcc -std=c11 -O2 -Wall -Wextra -Werror -I"$REPO/plugin" -o "$WORK/driver" "$HERE/driver.c" \
		"$REPO/plugin/functions.c" "$REPO/plugin/locked.c" 2>"$WORK/err" ||
		{ FAIL_WHY="the driver: $(head -c 400 "$WORK/err")"; return 1; }
	objdump -d --insn-width=16 -j .text "$OBJDIR/vmlinux" |
		awk -F'\t' 'NF >= 3 && $1 ~ /^ *[0-9a-f]+:$/ { b = $2; gsub(/ /, "", b); print b, $3 }' >"$WORK/insns"
	awk '{ print $1 }' "$WORK/insns" | xargs "$WORK/driver" locked >"$WORK/kinds"
	# objdump's opinion: a `lock` mnemonic prefix, or xchg with a memory operand.
	paste -d ' ' "$WORK/kinds" "$WORK/insns" | awk '
		{ n++; want = "none" }
		$3 == "lock" { lock++; want = $4 ~ /^xchg/ ? "xchg" : "prefixed" }
		$3 ~ /^xchg/ && /\(/ { xchg++; want = "xchg" }
		$1 != want { bad++; if (bad <= 3) print "decoded " $1 ", objdump: " $0 }
		END {
			printf "%d instructions, %d lock, %d xchg with memory\n", n, lock, xchg
			exit !(n > 100000 && lock > 100 && xchg > 10 && !bad)
		}' >"$WORK/verdict" || { FAIL_WHY="$(tr '\n' ';' <"$WORK/verdict")"; return 1; }
	note "locked-vmlinux: $(tail -n 1 "$WORK/verdict")"
}

KERNEL=$OBJDIR/arch/x86/boot/bzImage MAP=$OBJDIR/System.map
# plugin COUNTS: QEMU's -plugin option of a boot by hand that writes COUNTS, with $MAP.
# The events boot-point.sh --cost counts unless told (scripts/common.sh's default list): a
# boot by hand counts them too, to give the same lines.
DEFAULT_EVENTS=$(sed -n 's/^COST_EVENTS=//p' "$REPO/scripts/common.sh")
plugin() {
	printf '%s,out=%s,map=%s,map_sha256=%s,events=%s\n' "$("$COST" build)" "$1" "$MAP" \
		"$(sha256sum "$MAP" | cut -d ' ' -f 1)" "$DEFAULT_EVENTS"
}
need_kernel() {
	[[ -n $OBJDIR ]] || { SKIP_WHY="no --objdir: no kernel to boot (tests/kernel/run.sh builds one)"; return 2; }
	[[ -f $KERNEL && -f $MAP ]] || { SKIP_WHY="no bzImage or System.map in $OBJDIR"; return 2; }
	[[ -x $BIN ]] || { FAIL_WHY="no binary at $BIN (cargo build --release)"; return 1; }
}

case_boot_unchanged() {
	need_kernel || return $?
	point plain || { FAIL_WHY="boot-point.sh: $(tail -c 600 "$WORK/plain.err")"; return 1; }
	point counted --cost "$MAP" || { FAIL_WHY="boot-point.sh --cost: $(tail -c 600 "$WORK/counted.err")"; return 1; }
	grep -q -- '-> PASS$' "$WORK/plain.point" || { FAIL_WHY="the plain boot did not pass"; return 1; }
	# Every row, the mean, the spread, the histogram, the checks.
	diff <(report plain) <(report counted) >"$WORK/diff" ||
		{ FAIL_WHY="the plugin changed the point: $(head -c 600 "$WORK/diff")"; return 1; }
}

case_boot_windows() {
	need_kernel || return $?
	[[ -s $WORK/counted.point ]] || case_boot_unchanged || return $?
	direct raw plain "$(plugin "$WORK/raw.counts")" || { FAIL_WHY="no # boot= or # cmdline= line, or no initramfs"; return 1; }
	diff <(report plain) <(report raw) >"$WORK/diff" ||
		{ FAIL_WHY="a boot by hand differs from boot-point.sh's: $(head -c 600 "$WORK/diff")"; return 1; }
	# The same boot gives the same counts: boot-point.sh's lines are these.
	rm -f "$WORK/raw.costed"
	"$BIN" points --console "$WORK/raw.console" -o "$WORK/raw.costed" --counts "$WORK/raw.counts" \
		--map "$MAP" >/dev/null 2>"$WORK/err" || { FAIL_WHY="lines: $(cat "$WORK/err")"; return 1; }
	diff <(grep '^# cost: ' "$WORK/raw.costed") <(grep '^# cost: ' "$WORK/counted.point") >"$WORK/diff" ||
		{ FAIL_WHY="boot-point.sh --cost's lines differ from a boot by hand: $(head -c 600 "$WORK/diff")"; return 1; }
	# One run; one window a measured round, one span a cycle (s0 times one span a cycle).
	grep -q "^run 1 windows=3 unbalanced=0 open_at_end=0 spans=48\$" "$WORK/raw.counts" ||
		{ FAIL_WHY="want 3 windows of 16 spans: $(grep '^run' "$WORK/raw.counts")"; return 1; }
	grep -q "^end runs=1 stray_windows=0 " "$WORK/raw.counts" ||
		{ FAIL_WHY="want one run: $(grep '^end' "$WORK/raw.counts")"; return 1; }
	# A window is its round's timed spans plus their clock reads (the part of each read
	# outside the span) and markers: window minus the round's timed ns is one value on
	# every round, within the clock's rounding (each span's reading rounds to the ns: at
	# most one per cycle), save a round an interrupt fell into a clock read (more, never
	# less). The cycles a round come from the banner.
	local cycles
	cycles=$(sed -n 's/.* cycles=\([0-9]*\) .*/\1/p' "$WORK/raw.point" | head -n 1)
	awk -v cycles="$cycles" '
		FNR == NR && $1 == "window" { split($4, u, "="); split($5, k, "="); w[n++] = u[2] + k[2]; next }
		FNR == NR || /^#/ || $1 !~ /^[0-9]+$/ { next }
		{ d[$1] = w[$1] - $3 * $2; if (rounds++ == 0 || d[$1] < base) base = d[$1] }
		END {
			for (r in d) if (d[r] > base + cycles) { extra++; print "round " r ": window - timed = " d[r] ", others from " base }
			if (rounds != n) { print rounds " rounds, " n " windows"; exit 1 }
			exit !(cycles > 0 && base > 0 && extra <= 1)
		}' "$WORK/raw.counts" "$WORK/raw.point" >"$WORK/recon" ||
		{ FAIL_WHY="$(cat "$WORK/recon")"; return 1; }
}

case_boot_point() {
	need_kernel || return $?
	[[ -s $WORK/counted.point ]] || case_boot_unchanged || return $?
	local p=$WORK/counted.point sum kern locked f
	grep -q '^# cost: method counter=qemu-tcg-plugin api=1 window=timed-spans .* locked=x86-lock events=[a-z_:]*$' "$p" ||
		{ FAIL_WHY="no method line with locked=x86-lock"; return 1; }
	kern=$(sed -n 's/^# cost: series s0_wait_wake windows=3 pairs=1536 user=[0-9]* kernel=\([0-9]*\) .*/\1/p' "$p")
	sum=$(awk '$3 == "fn" { s += $6 } END { printf "%.0f", s }' "$p")
	[[ -n $kern && $kern == "$sum" ]] || { FAIL_WHY="fn lines add up to $sum, series kernel=$kern"; return 1; }
	locked=$(sed -n 's/^# cost: series s0_wait_wake .* kernel_locked=\([0-9]*\) .*/\1/p' "$p")
	sum=$(awk '$3 == "locked" { s += $6 } END { printf "%.0f", s }' "$p")
	[[ -n $locked && $locked == "$sum" && $locked -gt 0 ]] ||
		{ FAIL_WHY="locked lines add up to $sum, series kernel_locked=$locked"; return 1; }
	# The s0 path: io_uring's submission and the futex wait and wake; the wake's atomics.
	for f in io_submit_sqes io_futex_wait io_futex_wake futex_wake; do
		grep -q "^# cost: fn s0_wait_wake [0-9.]* [0-9]* $f\$" "$p" || { FAIL_WHY="no fn line for $f"; return 1; }
	done
	grep -q "^# cost: locked s0_wait_wake [0-9.]* [0-9]* futex_wake\$" "$p" || { FAIL_WHY="no locked line for futex_wake"; return 1; }
	"$BIN" compare "$p" >/dev/null 2>"$WORK/err" || { FAIL_WHY="compare refused the point: $(cat "$WORK/err")"; return 1; }
}

case_boot_point_errors() {
	need_kernel || return $?
	local p=$WORK/bpe.point
	expect bp-no-map 2 'not a readable file: /nonexistent' "$REPO/scripts/boot-point.sh" --kernel "$KERNEL" \
		-o "$p" --bin "$BIN" --accel icount --cost /nonexistent -- --smoke || return 1
	mkdir -p "$WORK/fakebin"
	fake_qemu fakebin/qemu-system-x86_64 "plugin interface not enabled in this build"
	expect bp-no-plugins 125 'plugin interface not enabled' env PATH="$WORK/fakebin:$PATH" \
		"$REPO/scripts/boot-point.sh" --kernel "$KERNEL" -o "$p" --bin "$BIN" --cost "$MAP" -- --smoke || return 1
	[[ ! -e $p ]] || { FAIL_WHY="a point was written"; return 1; }
}

# A boot with noreplace-smp keeps the kernel's LOCK prefixes, which a boot on one CPU turns
# into DS prefixes: the counts must not care. The tick falls elsewhere in another boot, so
# the functions compared are those that executed the same instructions in both boots.
case_boot_locked_smp() {
	need_kernel || return $?
	[[ -s $WORK/counted.point ]] || case_boot_unchanged || return $?
	if ! direct up plain "$(plugin "$WORK/up.counts")" ||
		! direct smp plain "$(plugin "$WORK/smp.counts")" noreplace-smp; then
		FAIL_WHY="no # boot= or # cmdline= line, or no initramfs"
		return 1
	fi
	grep -q ' translated_unlocked_sites=0$' "$WORK/smp.counts" ||
		{ FAIL_WHY="noreplace-smp left unlocked sites: $(grep '^end' "$WORK/smp.counts")"; return 1; }
	grep -q ' translated_unlocked_sites=[1-9][0-9]*$' "$WORK/up.counts" ||
		{ FAIL_WHY="a one-CPU boot with no unlocked site: $(grep '^end' "$WORK/up.counts")"; return 1; }
	awk '
		FNR == 1 { side++ }
		$1 == "fn" { fn[side, $4] = $3 }
		$1 == "locked" { locked[side, $4] = $3 }
		END {
			for (key in fn) {
				split(key, k, SUBSEP)
				if (k[1] != 1 || fn[2, k[2]] != fn[key]) continue
				same++
				if (locked[key] + 0 != locked[2, k[2]] + 0) { bad++; print k[2] ": locked " locked[key] + 0 " and " locked[2, k[2]] + 0 }
				else if (locked[key] > 0) counted++
			}
			print same " functions the same in both boots, " counted " of them with locked instructions"
			exit !(same > 50 && counted >= 4 && !bad)
		}' "$WORK/up.counts" "$WORK/smp.counts" >"$WORK/verdict" || { FAIL_WHY="$(tr '\n' ';' <"$WORK/verdict")"; return 1; }
	note "boot-locked-smp: $(tail -n 1 "$WORK/verdict")"
}

# A boot of several runs: `selftest` as /init runs every workload once; the counts keep one
# section a run, and a run's point (the boot's only run) gets no lines from them.
case_boot_runs() {
	need_kernel || return $?
	[[ -s $WORK/counted.point ]] || case_boot_unchanged || return $?
	local results
	direct runs plain "$(plugin "$WORK/runs.counts")" -- selftest --cpu 0 ||
		{ FAIL_WHY="no # boot= or # cmdline= line, or no initramfs"; return 1; }
	# One word a workload, in selftest's order: `run` (it ran, passed or failed) or `skip`
	# (the kernel lacks what it needs: it stops before its first round).
	local kinds
	kinds=$(tr -d '\r' <"$WORK/runs.console" |
		awk '/^(not )?ok [0-9]+ - / { printf "%s ", /# SKIP/ ? "skip" : "run" }')
	results=$(wc -w <<<"$kinds")
	grep -qw run <<<"$kinds" && ((results > 1)) ||
		{ FAIL_WHY="selftest ran $results workloads ($kinds): $(tail -c 300 "$WORK/runs.console")"; return 1; }
	grep -q "^end runs=$results stray_windows=0 " "$WORK/runs.counts" ||
		{ FAIL_WHY="$results runs, the counts: $(grep '^end' "$WORK/runs.counts")"; return 1; }
	# Each a complete section and no stray marker: a run that ran has its windows (a smoke
	# run: one round) and its series; a skipped one has its section, empty (its marker is
	# its first instruction, its skip comes before any round).
	awk -v kinds="$kinds" '
		BEGIN { want = split(kinds, kind, " ") }
		$1 == "run" {
			n++
			empty = $3 == "windows=0"
			if ($2 != n || empty != (kind[n] == "skip") || $4 != "unbalanced=0" || $5 != "open_at_end=0")
				bad = bad " " $0 " (" kind[n] ")"
		}
		$1 == "series" { series[n]++ }
		END {
			for (i = 1; i <= n; i++) if (kind[i] == "run" && !series[i]) bad = bad " run " i " without series"
			if (bad) print bad
			exit n != want || bad != ""
		}' \
		"$WORK/runs.counts" >"$WORK/verdict" || { FAIL_WHY="sections:$(cat "$WORK/verdict")"; return 1; }
	{ cat "$WORK/plain.point"; echo 'uring-repro: exit 0'; } >"$WORK/plain.console"
	expect runs-unnamed 125 "$results runs: a run's point is the only run of its boot" \
		"$BIN" points --console "$WORK/plain.console" -o "$WORK/runs.point" --counts "$WORK/runs.counts" ||
		return 1
}

# count_of POINT KIND SERIES NAME: the COUNT of POINT's `# cost: KIND SERIES PER COUNT NAME`
# line (empty without one).
count_of() {
	awk -v k="$2" -v s="$3" -v n="$4" '$1 == "#" && $2 == "cost:" && $3 == k && $4 == s && $7 == n { print $6 }' "$1"
}

# The events on a real boot (docs/cost.md, "Events"): a suite of n0 and a0, one vCPU, the
# default list. Every event has its line in every series, 0 too; n0, a NOP completed inline,
# neither schedules nor wakes anyone inside its spans; a0's NOPs each run in an io-wq worker:
# at least one wake-up an op (the worker woken for it, the submitter woken by its CQE).
case_boot_events() {
	need_kernel || return $?
	local d=$WORK/events.suite p ev n ops wakes
	"$REPO/scripts/boot-point.sh" --kernel "$KERNEL" -o "$d" --accel icount --bin "$BIN" \
		--timeout "$BOOT_TIMEOUT" --cost "$MAP" -- suite --profiles n0,a0 --cycles 16 --rounds 3 \
		--warmups 1 >/dev/null 2>"$WORK/events.err" ||
		{ FAIL_WHY="boot-point.sh: $(tail -c 600 "$WORK/events.err")"; return 1; }
	for p in n0:n0_nop a0:a0_nop_async; do
		grep -q "^# cost: method .* events=$COST_EVENTS\$" "$d/${p%%:*}.txt" ||
			{ FAIL_WHY="${p%%:*}: no method line naming the events: $(grep '^# cost: method' "$d/${p%%:*}.txt")"; return 1; }
		n=0
		for ev in ${COST_EVENTS//:/ }; do
			[[ -n $(count_of "$d/${p%%:*}.txt" event "${p#*:}" "$ev") ]] ||
				{ FAIL_WHY="${p%%:*}: no event line for $ev"; return 1; }
			n=$((n + 1))
		done
		[[ $(grep -c '^# cost: event ' "$d/${p%%:*}.txt") == "$n" ]] ||
			{ FAIL_WHY="${p%%:*}: event lines other than the $n watched"; return 1; }
	done
	for ev in __schedule try_to_wake_up; do
		[[ $(count_of "$d/n0.txt" event n0_nop "$ev") == 0 ]] ||
			{ FAIL_WHY="n0: $ev entered $(count_of "$d/n0.txt" event n0_nop "$ev") times in its spans"; return 1; }
	done
	ops=$(sed -n 's/^# cost: series a0_nop_async windows=3 pairs=\([0-9]*\) .*/\1/p' "$d/a0.txt")
	wakes=$(count_of "$d/a0.txt" event a0_nop_async try_to_wake_up)
	[[ -n $ops && -n $wakes ]] && ((ops > 0 && wakes >= ops)) ||
		{ FAIL_WHY="a0: $wakes wake-ups for ${ops:-no} NOPs run by io-wq"; return 1; }
	note "boot-events: a0 $wakes wake-ups for $ops NOPs"
}

# Two vCPUs: under the instruction clock QEMU runs them on one thread and the counter counts
# both (the spans' instructions per pair are the point's, but for the clock reads' edges,
# as with one vCPU: docs/cost.md); under plain TCG each has a thread and --cost is refused.
case_boot_smp() {
	need_kernel || return $?
	local p=$WORK/smp2.point
	point smp2 --cpus 2 --cost "$MAP" || { FAIL_WHY="boot-point.sh --cpus 2: $(tail -c 600 "$WORK/smp2.err")"; return 1; }
	grep -q '^# boot=.* -smp 2 ' "$p" || { FAIL_WHY="not booted with two vCPUs: $(grep '^# boot=' "$p")"; return 1; }
	[[ -n $(count_of "$p" event s0_wait_wake __schedule) ]] || { FAIL_WHY="no event lines"; return 1; }
	# Counted minus timed, per pair: the clock reads' edges (about 2 for s0), never less.
	awk '
		$1 == "#" && $3 == "series" && $4 == "s0_wait_wake" {
			for (i = 5; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
			counted = (v["user"] + v["kernel"]) / v["pairs"]
		}
		$1 == "mean" { mean = $3 }
		END {
			printf "counted %.3f a pair, timed %.3f\n", counted, mean
			exit !(mean > 0 && counted - mean >= 0 && counted - mean < 3)
		}' <(sed 's/^# cost: /# x /' "$p") >"$WORK/verdict" || { FAIL_WHY="$(cat "$WORK/verdict")"; return 1; }
	note "boot-smp: $(cat "$WORK/verdict")"
	expect smp-tcg 2 'more than one vCPU under --accel icount only' "$REPO/scripts/boot-point.sh" \
		--kernel "$KERNEL" -o "$WORK/smp-tcg.point" --accel tcg --cpus 2 --bin "$BIN" --cost "$MAP" \
		-- "${RUN[@]}" || return 1
	[[ ! -e $WORK/smp-tcg.point ]] || { FAIL_WHY="a point was written under plain TCG"; return 1; }
}

# ---------------------------------------------------------------------------------------
ensure_tools
for c in "${CASES[@]}"; do
	if ((${#ONLY[@]})) && [[ " ${ONLY[*]} " != *" $c "* ]]; then continue; fi
	FAIL_WHY="" SKIP_WHY="" rc=0
	"case_${c//-/_}" || rc=$?
	case $rc in
	0) result_ok "$c" ;;
	2) result_skip "$c" "$SKIP_WHY" ;;
	*) result_not_ok "$c" "$FAIL_WHY" ;;
	esac
done
summary
