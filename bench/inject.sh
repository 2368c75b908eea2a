#!/usr/bin/env bash
# The positive control's accuracy on this machine: interleaved default runs
# without and with --inject-ns N (default 200), PAIRS of each, in one go.
# Prints every run's mean ns/pair, the medians, and the median of the
# per-pair differences (each B minus the A just before it: interleaving
# cancels the drift of a shared, noisy box). The target: N +- 25%.
# Usage: bench/inject.sh [N] [PAIRS] [extra run args...]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-200}
pairs=${2:-9}
shift $(( $# > 2 ? 2 : $# ))
cargo build --release --quiet
bin=target/release/uring-repro
mean() { "$bin" "$@" | awk '$1 == "mean" { print $3 }'; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
a=() b=() d=()
for i in $(seq "$pairs"); do
    x=$(mean "$@")
    y=$(mean --inject-ns "$n" "$@")
    a+=("$x") b+=("$y") d+=("$(awk -v x="$x" -v y="$y" 'BEGIN { print y - x }')")
    echo "pair $i: A $x  B $y  B-A $(awk -v x="$x" -v y="$y" 'BEGIN { printf "%.3f", y - x }')"
done
ma=$(printf '%s\n' "${a[@]}" | median)
mb=$(printf '%s\n' "${b[@]}" | median)
md=$(printf '%s\n' "${d[@]}" | median)
echo "median A: $ma ns/pair; median B (--inject-ns $n): $mb ns/pair"
awk -v d="$md" -v n="$n" 'BEGIN {
    printf "median B-A: %.3f ns/pair = %.1f%% of the injected %d (target 75%%..125%%)\n", d, d / n * 100, n
    exit !(d >= 0.75 * n && d <= 1.25 * n)
}'
