#!/usr/bin/env bash
# Records what the binary prints for one fixed set of commands, so that a
# change which must not change behaviour can be checked against the tree
# before it:
#
#   bench/behaviour.sh DIR [BIN]      # one file per command in DIR
#   diff -r before/ after/            # nothing: the same behaviour
#
# Each file holds the command, its stdout, its stderr and its exit code.
# What differs from run to run on the same box is masked, in the outputs of
# commands that measure only: every decimal number and percentage (the
# timings), timed_ns, PIDs, the witness instance's name, and the pollwake
# waiter's scheduling counts. compare, report, describe, usage errors and
# --help are kept byte for byte. The witness runs need root (a private
# mount namespace with tracefs); without it they record that they were
# skipped. BIN defaults to this checkout's release build.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: bench/behaviour.sh DIR [BIN]}
bin=${2:-target/release/uring-repro}
[ -n "${2:-}" ] || cargo build --release --quiet
bin=$(realpath "$bin")
mkdir -p "$out"
out=$(realpath "$out")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0

# The masks of a measuring command's output.
timings() {
    sed -E -e 's/[+-]?[0-9]+\.[0-9]+%?/N/g' \
        -e 's/\b(pid|boot_id)=[0-9a-f-]+/\1=X/g' \
        -e 's/uring-repro-[0-9]+/uring-repro-PID/g' \
        -e 's/\b(wakes|asleep_retries|late_wakeups|empty_wakes)=[0-9]+/\1=N/g' \
        -e 's/wakes_per_burst( [0-9]+:[0-9]+)+/wakes_per_burst H/'
}

# record MASK NAME CMD...: runs CMD (in tests/fixtures, BIN as $B) and keeps
# what it printed; MASK is `t` for a measuring command, `-` otherwise.
record() {
    local mask=$1 name=$2
    shift 2
    n=$((n + 1))
    local f
    f=$(printf '%s/%03d-%s' "$out" "$n" "$name")
    local code=0
    (cd tests/fixtures && B=$bin T=$tmp "$@") > "$tmp/stdout" 2> "$tmp/stderr" || code=$?
    {
        printf '$ %s\n' "$*"
        if [ "$mask" = t ]; then timings < "$tmp/stdout"; else cat "$tmp/stdout"; fi
        echo "--- stderr"
        if [ "$mask" = t ]; then timings < "$tmp/stderr"; else cat "$tmp/stderr"; fi
        echo "--- exit $code"
    } > "$f"
}

run() { "$B" "$@"; }
export -f run

profiles="s0 c0 v0 z0 e0 n0 l0 pollwake a0 r0 p0 t0 m0 u0 k0"

# Every profile: its smoke, its contract, and --trace under the witness.
for p in $profiles; do
    record t "smoke-$p" run --smoke --profile "$p"
    record - "describe-$p" run describe --profile "$p"
done
for p in s0 c0 v0 z0 e0; do
    record t "smoke-shared-$p" run --smoke --shared --profile "$p"
    record - "describe-shared-$p" run describe --shared --profile "$p"
done
record - describe-v0-slots run describe --profile v0 --slots 3
record - describe-smoke run describe --smoke --cycles 7 --inject-ns 50
record t run-default run
record t run-trace run --trace --profile c0
record t run-inject run --smoke --inject-ns 100
record t run-pollwake-flags run --smoke --profile pollwake --ring-flags defer-taskrun --burst 8
record t run-tsv sh -c '"$B" --smoke --profile v0 --tsv "$T/v0.tsv" >/dev/null &&
    awk -F"\t" "NR == 1 { for (i = 1; i <= NF; i++) if (\$i == \"timed_ns\") c = i }
        NR > 1 { \$c = \"N\" } { print }" OFS="\t" "$T/v0.tsv"'
record t witness-optional run --trace --witness=optional
record t witness-refused run --trace --witness
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
    for p in $profiles; do
        record t "witness-$p" unshare -m sh -c \
            'mount -t tracefs nodev /sys/kernel/tracing && "$B" --trace --witness --profile '"$p"
    done
else
    echo "SKIP: the witness runs need root and unshare -m" > "$out/witness-skipped"
fi
record - selftest run selftest

# Usage errors and refusals.
record - usage-unknown-profile run --profile x9
record - usage-rounds-0 run --rounds 0
record - usage-cycles-huge run --cycles 10000001
record - usage-shared-n0 run --shared --profile n0
record - usage-v0-slots run --profile v0 --slots 9
record - usage-burst-s0 run --burst 8
record - usage-describe-pollwake run describe --profile pollwake
record - usage-unknown-option run --frobnicate
record - usage-cpu-absent run --smoke --cpu 4095
record - usage-waiter-cpu run --smoke --profile pollwake --waiter-cpu 4095
record - usage-tsv-exists run --smoke --tsv published/child.tsv
record - usage-compare-nothing run compare
record - usage-calibrate-pct run calibrate --inject-pct 0
record - usage-calibrate-trace run calibrate --trace
record - usage-initramfs-no-o run initramfs
record - usage-initramfs-exists run initramfs -o published/child.txt
record - usage-report-no-label run report published/child.txt
record - usage-command run frobnicate
record - help run --help
record - version run --version

# Saved points: compare, --bisect and report on the fixtures.
pub="published/parent_a.txt published/child.txt published/parent_b.txt"
record - compare-sandwich run compare $pub
record - compare-tsv-files run compare published/parent_a.tsv published/child.tsv published/parent_b.tsv
record - compare-drop-first run compare --drop-first $pub
record - compare-as-tsv run compare --tsv $pub
record - compare-gate run compare --gate 12 $pub
record - compare-labels run compare a=published/parent_a.txt b=published/child.txt \
    a=published/parent_b.txt c=published/child_standalone.txt
record - compare-witnessed run compare witnessed/a.txt witnessed/b.txt witnessed/c.txt
record - compare-bisect run compare --bisect good=published/parent_a.txt \
    good=published/parent_b.txt bad=published/child.txt bad=published/child_standalone.txt \
    new=published/child.txt
record - report-published run report --introduced 079afb081c42 parent=published/parent_a.txt \
    child=published/child.txt parent=published/parent_b.txt
record - report-witnessed run report a=witnessed/a.txt b=witnessed/b.txt a=witnessed/c.txt
for f in tests/fixtures/bad/*; do
    b=$(basename "$f")
    case "$b" in expected.txt|README.md) continue ;; esac
    mode=$(sed -n "s/^--mode \([a-z_]*\) $b:.*/\1/p" tests/fixtures/bad/expected.txt)
    record - "compare-bad-$b" run compare ${mode:+--mode "$mode"} "bad/$b"
done

# Saved points beyond the fixtures as they are: made in $T from them (or
# from scratch: `point`), then read from there under relative names, so
# that what is echoed is the same on every run.
point() { # NAME NS LAST_PASS ROUNDS [BANNER_EXTRA]: a stdout point of 15 rounds
    awk -v name="$1" -v ns="$2" -v last="$3" -v n="$4" -v extra="${5:-}" 'BEGIN {
        h = 0; for (i = 1; i <= length(name); i++) h = (h * 31 + index("abcdefghijklmnopqrstuvwxyz0123456789_.", substr(name, i, 1))) % 4294967296
        printf "# uring-repro 0.1.0 profile=s0_wait_wake mode=point kernel=6.15.0-new boot_id=0d0d0d0d-0000-4000-8000-%012x cpu=2 cpu_choice=default clock=vdso%s\n", h, extra
        print "# ring_entries=64 cq_entries=128 slots=32 vector_width=1 cycles=512 warmups=3 rounds=15 futex=private timeout_s=2 features=0x3ffff input_sha256=40383f68e91cc249d50cd7cb5170861f61d6f0991bf93c2dbf6edd549520f072"
        print "round\tpairs\tns_per_pair\tsemantic_pass"
        split("0.05 -0.05 0.1 -0.1 0.0", d, " ")
        for (r = 0; r < n; r++) {
            v = sprintf("%.6f", ns + d[r % 5 + 1]); sum += v
            printf "%d\t16384\t%s\t%d\n", r, v, (r + 1 == n ? last : 1)
        }
        printf "%s\t%d\t%.6f\t%d\n", (n == 15 ? "mean" : "partial"), 16384 * n, sum / n, (last == 1)
        if (n != 15) printf "# interrupted: %d of 15 rounds\n", n
        printf "# checks: made up -> %s\n", (n != 15 ? "INTERRUPTED" : (last == 1 ? "PASS" : "FAIL"))
    }' > "$T/$1"
}
export -f point
# A whole pollwake run of three rounds, of boot $2 (two hex digits: its
# boot id is made of them), modes idle and waiter $3 ns above none.
pollwake() {
    {
        printf '# uring-repro 0.1.0 profile=pollwake kernel=6.18.0-test boot_id=%s cpu=1 cpu_choice=default clock=vdso\n' "$2$2$2$2-0000-4000-8000-0000000000$2"
        echo "# burst=32 cycles=512 warmups=3 rounds=3 ring_flags=none waiter_cpu=1 watchdog_ms=1000 ring_entries=64 cq_entries=128 timeout_s=2 features=0x3ffff"
        printf 'profile\tround\tpairs\tns_per_pair\tsemantic_pass\n'
        for r in 0 1 2; do
            for m in none:130 idle:$((195 + $3)) waiter:$((285 + $3)) none_aa:131; do
                printf 'pollwake_%s\t%d\t16384\t%d.000000\t1\n' "${m%%:*}" "$r" $((${m##*:} + r))
            done
        done
        for m in none:130 idle:$((195 + $3)) waiter:$((285 + $3)) none_aa:131; do
            printf 'pollwake_%s\tmean\t49152\t%d.000000\t1\n' "${m%%:*}" $((${m##*:} + 1))
        done
        echo "# checks: cqes=300000 bad_results=0 -> PASS"
    } > "$T/$1"
}
export -f pollwake
# A published point with `sed` applied, as $T/NAME.
edit() { sed "$3" "published/$1" > "$T/$2"; }
export -f edit
ico="p=icount/s0_parent_1.txt p=icount/s0_parent_2.txt c=icount/s0_child_1.txt c=icount/s0_child_2.txt"
record - compare-icount run compare $ico
record - compare-icount-tsv run compare --tsv $ico
record - compare-icount-n0 run compare icount/n0_parent.txt icount/n0_child.txt
record - compare-icount-beside-wall run compare published/parent_a.txt icount/s0_child_1.txt
record - compare-drop-first-tsv run compare --drop-first --tsv $pub
record - compare-labels-tsv run compare --tsv a=published/parent_a.txt b=published/child.txt \
    a=published/parent_b.txt c=published/child_standalone.txt
record - compare-standalone-alone run compare published/child_standalone.txt
record - compare-tsv-beside-its-stdout run compare a=published/parent_a.txt a=published/parent_a.tsv \
    b=published/child.txt
record - compare-same-file-twice run compare published/child.txt published/child.txt
record - compare-one-boot-two-labels run compare a=published/parent_a.txt b=published/parent_a.tsv
record - compare-sandwich-parents-one-boot run compare published/parent_a.txt published/child.txt \
    published/parent_a.tsv
record - compare-contract-futex bash -c 'edit child.txt shared.txt s/futex=private/futex=shared/ && cd "$T" &&
    cp "$OLDPWD"/published/parent_?.txt . && "$B" compare parent_a.txt shared.txt parent_b.txt'
record - compare-contract-inject bash -c 'edit child.txt inject.txt "s/timeout_s=2/timeout_s=2 inject_ns=100/" &&
    cd "$T" && cp "$OLDPWD"/published/parent_b.tsv . && "$B" compare inject.txt parent_b.tsv'
record - compare-witnessed-beside-plain bash -c 'edit child.txt w.txt "s/clock=vdso/clock=vdso witness=on/" &&
    cd "$T" && cp "$OLDPWD"/published/parent_a.tsv . && "$B" compare w.txt parent_a.tsv'
record - compare-other-profile bash -c 'edit child.txt c0.txt s/s0_wait_wake/c0_wait_cancel/ &&
    cd "$T" && cp "$OLDPWD"/published/parent_a.tsv . && "$B" compare c0.txt parent_a.tsv'
record - compare-failed-point bash -c 'edit child.txt failed.txt "s/^3\t16384\t196.797000\t1/3\t16384\t196.797000\t0/" &&
    cd "$T" && cp "$OLDPWD"/published/parent_?.txt . && "$B" compare parent_a.txt failed.txt parent_b.txt'
record - compare-one-round bash -c 'for p in parent_a child parent_b; do
        awk "/^0\t/ { print; r = \$0; sub(/^0/, \"mean\", r); print r; next } /^[0-9]+\t|^mean\t/ { next }
            { sub(/rounds=15/, \"rounds=1\"); print }" published/$p.txt > "$T/one_$p.txt"; done &&
    cd "$T" && "$B" compare one_parent_a.txt one_child.txt one_parent_b.txt &&
    "$B" compare --tsv one_parent_a.txt one_child.txt one_parent_b.txt;
    "$B" compare --drop-first one_parent_a.txt one_child.txt one_parent_b.txt'
record - compare-echoes bash -c 'edit child.txt echo.txt "s/kernel=6.15.0-synthetic-child/kernel=6.15\x1b[31m\xe2\x80\xaebad-$(printf "%0200d" 0)/" &&
    cd "$T" && cp "$OLDPWD"/published/parent_?.txt . && "$B" compare parent_a.txt echo.txt parent_b.txt &&
    "$B" report --link https://example.org/a p=parent_a.txt c=echo.txt p=parent_b.txt'
record - compare-pollwake-modes bash -c 'pollwake pa b1 0 && pollwake c b2 20 && pollwake pb b3 1 && cd "$T" &&
    "$B" compare --mode idle pa c pb && "$B" compare --mode none_aa --tsv pa c pb;
    "$B" compare pa c pb; cp "$OLDPWD"/published/child.txt . && "$B" compare --mode idle child.txt'
record - compare-sixteen bash -c 'cd "$T" && args= && for i in $(seq 1 16); do
        point "p$i.txt" $((180 + i % 3)) 1 15; args="$args label_${i}_xyz=p$i.txt"; done &&
    "$B" compare $args'
record - bisect-good bash -c 'point new.txt 180.2 1 15 && cd "$T" && cp "$OLDPWD"/published/*.txt . &&
    "$B" compare --bisect good=parent_a.txt good=parent_b.txt bad=child.txt new=new.txt'
record - bisect-skip bash -c 'point g1.txt 180 1 15 && point g2.txt 180.4 1 15 && point b1.txt 196 1 15 &&
    point b2.txt 196.4 1 15 && point n.txt 188.2 1 15 && cd "$T" &&
    "$B" compare --bisect good=g1.txt good=g2.txt bad=b1.txt bad=b2.txt new=n.txt'
record - bisect-new-failed bash -c 'point g.txt 180 1 15 && point b.txt 196 1 15 && point n.txt 195 0 15 && cd "$T" &&
    "$B" compare --bisect good=g.txt bad=b.txt new=n.txt'
record - bisect-new-interrupted bash -c 'point g.txt 180 1 15 && point b.txt 196 1 15 && point n.txt 195 1 4 && cd "$T" &&
    "$B" compare --bisect good=g.txt bad=b.txt new=n.txt'
record - bisect-reference-failed bash -c 'point g.txt 180 0 15 && point b.txt 196 1 15 && point n.txt 195 1 15 && cd "$T" &&
    "$B" compare --bisect good=g.txt bad=b.txt new=n.txt'
record - bisect-reference-missing bash -c 'point b.txt 196 1 15 && point n.txt 195 1 15 && cd "$T" &&
    "$B" compare --bisect good=nothing.txt bad=b.txt new=n.txt'
record - bisect-closer-than-gate run compare --bisect good=published/parent_a.txt bad=published/parent_b.txt \
    new=published/child.txt
record - bisect-icount-exact run compare --bisect --gate 1 good=icount/s0_parent_1.txt good=icount/s0_parent_2.txt \
    bad=icount/s0_child_1.txt new=icount/s0_child_2.txt
record - bisect-icount-identical bash -c 'sed s/boot_id=./boot_id=f/ icount/n0_child.txt > "$T/n0_new.txt" &&
    cp icount/n0_*.txt "$T" && cd "$T" && "$B" compare --bisect good=n0_parent.txt bad=n0_child.txt new=n0_new.txt'
record - bisect-contract bash -c 'edit child.txt shared.txt s/futex=private/futex=shared/ && cd "$T" &&
    cp "$OLDPWD"/published/parent_?.txt . && "$B" compare --bisect good=parent_a.txt bad=parent_b.txt new=shared.txt'
record - bisect-new-twice run compare --bisect good=published/parent_a.txt bad=published/child.txt \
    new=published/parent_a.tsv
record - bisect-usage run compare --bisect good=published/parent_a.txt bad=published/child.txt
# scripts/ab.sh's table: the judge on three real boots' suites (before the binary judged,
# the same table was tests/fixtures/kernel/ab-child.out's rows, computed in awk), its
# TSV, a row's compare text and a moved row's draft at the same gate; compare's and
# report's gate in instructions on the kernel fixtures.
record - ab-table bash -c 'mkdir "$T/ab" && cd ab/child && "$B" ab -o "$T/ab" base=base-1 head=head base=base-2;
    echo "exit $?"; cat "$T/ab/ab.tsv" "$T/ab/compare/n0.txt" "$T/ab/mail/s0.txt" "$T/ab/mail/report.log"'
record - ab-check bash -c '"$B" ab --check -- --rounds 1; "$B" ab --check -- --help; "$B" ab --check -- --rounds 2'
record - compare-gate-insn run compare --gate-insn 0.5 base=kernel/s0-parent-1.txt head=kernel/s0-child-1.txt \
    base=kernel/s0-parent-2.txt
record - compare-gate-insn-tsv run compare --tsv --gate-insn 0.5 base=kernel/n0-parent.txt head=kernel/n0-child.txt
record - report-gate-insn run report --gate-insn 0.5 base=kernel/s0-parent-1.txt head=kernel/s0-child-1.txt \
    base=kernel/s0-parent-2.txt
record - report-tsv-files bash -c 'cd published && "$B" report --introduced 079afb081c42 --parent 1234567 \
    parent=parent_a.tsv child=child.tsv parent=parent_b.tsv'
record - report-mixed-tools bash -c 'cd published && "$B" report a=parent_a.txt b=child_standalone.txt a=parent_b.txt'
record - report-icount bash -c 'cd icount && "$B" report --introduced abcdef1 p=s0_parent_1.txt p=s0_parent_2.txt \
    c=s0_child_1.txt c=s0_child_2.txt && "$B" report n=n0_parent.txt c=n0_child.txt'
record - report-failed bash -c 'edit child.txt failed.txt "s/^3\t16384\t196.797000\t1/3\t16384\t196.797000\t0/;s/synthetic -> PASS/cqes=3 bad_results=2 timeouts=0 -> FAIL/" &&
    cd "$T" && cp "$OLDPWD"/published/parent_?.txt . && "$B" report p=parent_a.txt c=failed.txt p=parent_b.txt'
record - report-options bash -c 'cd published && "$B" report --gate 12 --introduced 079afb081c42 --parent 0123456789ab \
    --title "io_uring/futex: WAIT/WAKE slower" --link https://lore.kernel.org/x --link https://example.org/y \
    parent=parent_a.txt child=child.txt parent=parent_b.txt'
record - report-one-boot-twice bash -c 'cd published && "$B" report a=parent_a.txt a=parent_a.tsv b=child.txt'
record - report-odd-paths bash -c 'mkdir -p "$T/a dir/it'"'"'s" && cp published/child.txt "$T/a dir/it'"'"'s/child 1.txt" &&
    cp published/child.txt "$T/a dir/$(printf "new\tline")" && cd "$T" && cp "$OLDPWD"/published/parent_?.txt . &&
    sed -i s/0c0c0c0c-/0e0e0e0e-/ "a dir/$(printf "new\tline")" &&
    mkdir -p "$(printf "%0100d" 0)" && "$B" report p=parent_a.txt "c=a dir/it'"'"'s/child 1.txt" \
        "d=a dir/$(printf "new\tline")" "p=$(printf "%0100d" 0)/../parent_b.txt"'
record - report-pollwake bash -c 'pollwake pa b1 0 && pollwake c b2 20 && pollwake pb b3 1 && cd "$T" &&
    "$B" report --mode waiter a=pa b=c a=pb'
record - report-one-round bash -c 'cd "$T" && "$B" report a=one_parent_a.txt b=one_child.txt a=one_parent_b.txt'
record - report-witness-differs bash -c 'sed "s/FUTEX_WAIT=[0-9]*/FUTEX_WAIT=7/" witnessed/b.txt > "$T/wb.txt" &&
    cd "$T" && cp "$OLDPWD"/witnessed/[ac].txt . && "$B" report a=a.txt b=wb.txt a=c.txt'
record - report-inject bash -c 'for p in parent_a child parent_b; do
        edit $p.txt inj_$p.txt "s/timeout_s=2/timeout_s=2 inject_ns=100/"; done && cd "$T" &&
    "$B" report p=inj_parent_a.txt c=inj_child.txt p=inj_parent_b.txt'
record - report-sixteen bash -c 'cd "$T" && args= && for i in $(seq 1 16); do
        args="$args label_${i}_xyz=p$i.txt"; done && "$B" report $args'

# Paths at PATH_MAX, which counts the NUL: 4095 bytes are a path, 4096
# are not (ENAMETOOLONG, or initramfs's refusal). Relative names padded
# with ./ to the byte, so that the same command is recorded on every run.
# (A NUL inside a path cannot come through argv: the unit tests hold every
# path builder to it.)
padded() { # LENGTH TAIL: TAIL behind ./ and / up to LENGTH bytes
    local n=$(($1 - ${#2})) p=
    [ $((n % 2)) = 0 ] || { p=/; n=$((n - 1)); }
    printf '%s%s%s' "$(printf './%.0s' $(seq $((n / 2))))" "$p" "$2"
}
export -f padded
record - path-max-compare bash -c '"$B" compare published/parent_a.txt "$(padded 4095 published/child.txt)" \
    published/parent_b.txt | head -3'
record - path-over-compare bash -c '"$B" compare published/parent_a.txt "$(padded 4096 published/child.txt)" \
    published/parent_b.txt'
record - path-over-report bash -c '"$B" report a=published/parent_a.txt "b=$(padded 4096 published/child.txt)"'
record - path-over-bisect-new bash -c '"$B" compare --bisect good=published/parent_a.txt \
    bad=published/child.txt "new=$(padded 4096 published/parent_b.txt)"'
record t path-max-tsv bash -c 'cd "$T" && "$B" --smoke --tsv "$(padded 4095 max.tsv)" > /dev/null; echo "exit $?";
    wc -l < max.tsv'
record - path-over-tsv bash -c 'cd "$T" && "$B" --smoke --tsv "$(padded 4096 over.tsv)"; echo "exit $?"; ls over.tsv'
record - path-max-initramfs bash -c 'cd "$T" && "$B" initramfs -o "$(padded 4095 max.cpio)"; echo "exit $?";
    ls max.cpio*'
record - path-over-initramfs bash -c 'cd "$T" && "$B" initramfs -o "$(padded 4096 over.cpio)"'
record - path-over-init bash -c 'cd "$T" && "$B" initramfs -o init.cpio --init "$(padded 4096 init)"; echo "exit $?";
    ls init.cpio'

# Writes that fail: a full device (ENOSPC), a file size limit (EFBIG:
# the --tsv file and the archive removed), a write that takes nothing
# (strace makes one write(2) return 0: EIO, never a spin).
record - write-full-version sh -c '"$B" --version > /dev/full'
record - write-full-help sh -c '"$B" --help > /dev/full'
record - write-full-describe sh -c '"$B" describe > /dev/full'
record t write-full-run sh -c '"$B" --smoke > /dev/full'
record - write-full-compare sh -c '"$B" compare published/parent_a.txt published/child.txt \
    published/parent_b.txt > /dev/full'
record - write-full-report sh -c '"$B" report a=published/parent_a.txt b=published/child.txt > /dev/full'
record t write-efbig-tsv bash -c 'cd "$T" && (ulimit -f 2 && exec "$B" --cycles 64 --rounds 9 --tsv efbig.tsv) | cat;
    echo "exit ${PIPESTATUS[0]}"; ls efbig.tsv'
record - write-efbig-initramfs bash -c 'cd "$T" && (ulimit -f 8 && exec "$B" initramfs -o efbig.cpio); echo "exit $?";
    ls efbig.cpio*'
if command -v strace > /dev/null; then
    # The 1st write(2) is stdout's; with --tsv the 1st is the header's,
    # the 3rd the first row's; initramfs's 3rd is inside the archive.
    zero() { strace -o /dev/null -e inject=write:retval=0:when="$1" "$B" "${@:2}"; echo "exit $?"; }
    export -f zero
    record - write-zero-version bash -c 'zero 1 --version'
    record - write-zero-compare bash -c 'zero 1 compare published/parent_a.txt published/child.txt published/parent_b.txt'
    record t write-zero-tsv-header bash -c 'cd "$T" && zero 1 --smoke --tsv zero1.tsv; ls zero1.tsv'
    record t write-zero-tsv-row bash -c 'cd "$T" && zero 3 --smoke --tsv zero3.tsv; ls zero3.tsv'
    record - write-zero-initramfs bash -c 'cd "$T" && zero 3 initramfs -o zero.cpio; ls zero.cpio*'
else
    echo "SKIP: the writes that take nothing need strace" > "$out/write-zero-skipped"
fi

echo "$n commands recorded in $out"
