#!/bin/sh
# Builds the release binary when needed and runs it with the given
# arguments; with none, the report's default contract (s0, 15 x 512 cycles).
set -eu
cd "$(dirname "$0")"
cargo build --release --quiet
exec ./target/release/uring-repro "$@"
