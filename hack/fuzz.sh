#!/usr/bin/env bash
# Runs one cargo-fuzz target of the generator for a while, in one process on one core (what
# -jobs=1 asks for, without libFuzzer's fork into a log file), with bounded memory.
#
#   bash hack/fuzz.sh TARGET [SECONDS]     TARGET: crd | openapi | rust | generate (default 300 s)
#
# Needs a nightly toolchain and cargo-fuzz:
#   rustup toolchain install nightly --profile minimal && cargo install --locked cargo-fuzz
#
# The committed seeds (fuzz/seeds/TARGET) are read, never written: what the fuzzer finds
# goes to fuzz/corpus/TARGET (ignored by git), a crash to fuzz/artifacts/TARGET. Fix a
# crash in the generator, then commit its input to fuzz/regressions/TARGET, where
# codegen/tests/fuzz_inputs.rs replays it on stable. libFuzzer prints executions and
# exec/s as it goes and a summary (`Done N runs in S second(s)`) at the end.
#
# Limits: 2 GiB of memory (-rss_limit_mb, -malloc_limit_mb), 10 s an input (-timeout),
# 16 KiB inputs (-max_len); debug assertions on, so integer overflow is a crash too.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"

target=${1:?usage: hack/fuzz.sh TARGET [SECONDS] (crd | openapi | rust | generate)}
seconds=${2:-300}
export CARGO_INCREMENTAL=0

mkdir -p "corpus/$target" "artifacts/$target"
exec cargo +nightly fuzz run --sanitizer none --debug-assertions "$target" \
  "corpus/$target" "seeds/$target" "regressions/$target" -- \
  -max_total_time="$seconds" -max_len=16384 -timeout=10 \
  -rss_limit_mb=2048 -malloc_limit_mb=2048 -print_final_stats=1 \
  -artifact_prefix="artifacts/$target/"
