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

profiles="s0 c0 v0 z0 e0 n0 l0 pollwake"

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

echo "$n commands recorded in $out"
