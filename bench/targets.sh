#!/usr/bin/env bash
# Measures the tool's targets on this machine, in one run:
#   1. syscalls: exactly two io_uring_enter per timed cycle and no clock
#      syscall (strace -f -c over a default run, and one with --inject-ns);
#   2. user-space instructions per wait/wake pair over a whole default run,
#      at most 100 (valgrind --tool=callgrind; warm-ups and set-up included;
#      valgrind hides the vDSO, so the clock falls back to the syscall there);
#   3. the stripped static binary within its size budget, 448 KiB, and the
#      riscv64 build's too (the same budget). The budget catches bloat
#      (core::fmt's machinery, a table of strings pulled in); it is not a
#      target to trade a clear line for. It was 128 KiB, then 224 KiB and
#      320 KiB, and code began to bend to save bytes: the timed path comes
#      first, then readable code, then bytes (448 KiB since the binary reads
#      its own formats and judges ab's table). opt-level "z" is not used (it turns off
#      loop unrolling in the timed s0 cycle: +6.4 user instructions per
#      pair, over the target of item 2), nor any size-only flag;
#   4. that the mem* functions do not call themselves (LLVM idiom check).
# Timing medians are noisy on this shared 2-core box; instruction counts
# are repeatable. Usage: bench/targets.sh [extra run args...]
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin=target/release/uring-repro
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Contract shape (defaults), so the expected counts follow from it.
warmups=3 rounds=15 cycles=512 slots=32
pairs=$(( (warmups + rounds) * cycles * slots ))

for tool in strace valgrind strip objdump; do
    command -v "$tool" >/dev/null || { echo "bench: $tool is not installed" >&2; exit 1; }
done

echo "== syscalls (strace -f -c, default run)"
strace -f -c -o "$tmp/strace" "$bin" "$@" > "$tmp/run.out"
enters=$(awk '$NF == "io_uring_enter" { print $(NF-1) ~ /^[0-9]+$/ ? $(NF-1) : $(NF-2) }' "$tmp/strace")
clock_calls=$(awk '$NF == "clock_gettime" { print $4 }' "$tmp/strace")
want=$(( 2 * (warmups + rounds) * cycles ))
echo "io_uring_enter calls: $enters (want 2 x ($warmups + $rounds) x $cycles = $want)"
echo "clock_gettime syscalls: ${clock_calls:-0} (want 0: vDSO)"
grep -o 'clock=[a-z]*' "$tmp/run.out" | head -1
# The positive control spins on the same clock: still no syscall added.
strace -f -c -o "$tmp/strace-inject" "$bin" --inject-ns 200 "$@" > /dev/null
inj_enters=$(awk '$NF == "io_uring_enter" { print $(NF-1) ~ /^[0-9]+$/ ? $(NF-1) : $(NF-2) }' "$tmp/strace-inject")
inj_clock=$(awk '$NF == "clock_gettime" { print $4 }' "$tmp/strace-inject")
echo "with --inject-ns 200: io_uring_enter calls: $inj_enters (want $want), clock_gettime syscalls: ${inj_clock:-0}"

echo "== instructions (valgrind --tool=callgrind, default run)"
(cd "$tmp" && valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" "$OLDPWD/$bin" "$@" \
    > "$tmp/cg.out" 2> "$tmp/cg.err")
total=$(awk '/refs:/ { gsub(",", "", $NF); print $NF }' "$tmp/cg.err")
echo "total instructions: $total over $pairs pairs (warm-ups included)"
awk -v t="$total" -v p="$pairs" 'BEGIN { printf "instructions per pair: %.1f (target <= 100)\n", t / p }'

echo "== size"
strip -o "$tmp/stripped" "$bin"
size=$(stat -c %s "$tmp/stripped")
budget=${URING_REPRO_SIZE_BUDGET:-458752}
echo "stripped binary: $size bytes, $((size * 100 / budget))% of the budget ($budget bytes, $((budget / 1024)) KiB)"
# riscv64, cross-built: GNU strip here reads only the host's formats, so the
# llvm-objcopy that ships with rustc strips it (its RUNPATH misses the
# toolchain's libLLVM, hence LD_LIBRARY_PATH).
rv_target=riscv64gc-unknown-linux-gnu
rv_size=""
if rustup target list --installed 2>/dev/null | grep -qx "$rv_target"; then
    cargo build --release --quiet --target "$rv_target"
    sysroot=$(rustc --print sysroot)
    host=$(rustc -vV | sed -n 's/^host: //p')
    LD_LIBRARY_PATH="$sysroot/lib" "$sysroot/lib/rustlib/$host/bin/rust-objcopy" --strip-all \
        "target/$rv_target/release/uring-repro" "$tmp/stripped-riscv64"
    rv_size=$(stat -c %s "$tmp/stripped-riscv64")
    echo "stripped riscv64 binary: $rv_size bytes, $((rv_size * 100 / budget))% of the budget ($budget bytes)"
else
    echo "SKIP: riscv64 size: the $rv_target target is not installed (rustup target add $rv_target)"
fi

echo "== mem* self-calls"
self=0
for f in memcpy memset memmove memcmp bcmp strlen; do
    if objdump -d --no-show-raw-insn "$bin" | awk -v f="$f" '
        $0 ~ "<"f">:$" { inside = 1; next }
        /^$/ { inside = 0 }
        inside && /call|jmp/ && $0 ~ "<"f">" { found = 1 }
        END { exit !found }'; then
        echo "$f calls itself"; self=1
    fi
done
[ "$self" = 0 ] && echo "none"

fail=0
[ "$enters" = "$want" ] || { echo "FAIL: io_uring_enter count"; fail=1; }
[ "${clock_calls:-0}" = 0 ] || { echo "FAIL: clock syscalls in a vDSO run"; fail=1; }
[ "$inj_enters" = "$want" ] || { echo "FAIL: io_uring_enter count with --inject-ns"; fail=1; }
[ "${inj_clock:-0}" = 0 ] || { echo "FAIL: clock syscalls with --inject-ns"; fail=1; }
awk -v t="$total" -v p="$pairs" 'BEGIN { exit !(t / p <= 100) }' || { echo "FAIL: instructions"; fail=1; }
[ "$size" -le "$budget" ] || { echo "FAIL: size over the budget"; fail=1; }
if [ -n "$rv_size" ]; then
    [ "$rv_size" -le "$budget" ] || { echo "FAIL: riscv64 size over the budget"; fail=1; }
elif [ -n "${CI:-}" ]; then
    echo "FAIL: the riscv64 size was skipped, and CI is set"; fail=1
fi
[ "$self" = 0 ] || fail=1
exit "$fail"
