#!/usr/bin/env bash
# Runs each cargo-fuzz target of context-editor-core for a given time, on stable Rust.
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     (default: 60 s, every target)
#   scripts/fuzz.sh 1800                                  # the 30-minute-per-target run
#   FUZZ_JOBS=2 scripts/fuzz.sh 600 edit_pipeline         # parallel workers (libFuzzer -fork)
#   FUZZ_SANITIZER=address scripts/fuzz.sh 60             # with ASan (default: none; the core has no unsafe code)
#
# cargo-fuzz needs nightly-only flags (`-Z` options, `--cfg fuzzing` builds of libFuzzer);
# RUSTC_BOOTSTRAP=1 lets the stable toolchain accept them. The corpus grows in fuzz/corpus/<target>
# (git-ignored), seeded from fuzz/seeds/<target> (committed); crashes land in fuzz/artifacts/<target>
# and make this script exit non-zero. Each run's libFuzzer log is kept in fuzz/target/logs/<target>.log
# (git-ignored) and its last stats lines are printed. Every target is built in one build, then the
# targets run side by side (one libFuzzer process each).
set -euo pipefail

cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(json_entry edit_pipeline)
fi
sanitizer="${FUZZ_SANITIZER:-none}"
jobs="${FUZZ_JOBS:-1}"
export RUSTC_BOOTSTRAP=1

# Pinned, as the lockfiles pin everything else: a fresh machine installs the version CI was run with.
CARGO_FUZZ_VERSION=0.13.2
if [ "$(cargo fuzz --version 2>/dev/null)" != "cargo-fuzz $CARGO_FUZZ_VERSION" ]; then
  echo "fuzz.sh: installing cargo-fuzz $CARGO_FUZZ_VERSION (cargo install cargo-fuzz --version $CARGO_FUZZ_VERSION --locked)" >&2
  cargo install cargo-fuzz --version "$CARGO_FUZZ_VERSION" --locked
fi

mkdir -p fuzz/target/logs
for t in "${targets[@]}"; do mkdir -p "fuzz/corpus/$t" "fuzz/artifacts/$t"; done
# One build for every target (they share the instrumented core), then the targets run side by
# side: each libFuzzer run is one process on one core, so on a 2-core machine two targets take the
# time of one.
echo "fuzz.sh: building ${targets[*]} (sanitizer: $sanitizer)" >&2
if [ ${#targets[@]} -eq 1 ]; then
  cargo fuzz build --sanitizer "$sanitizer" "${targets[0]}"
else
  cargo fuzz build --sanitizer "$sanitizer"
fi
flags=(-max_total_time="$seconds" -max_len=16384 -timeout=30 -rss_limit_mb=2048 -print_final_stats=1)
if [ "$jobs" -gt 1 ]; then
  flags+=(-fork="$jobs" -ignore_crashes=0)
fi
pids=()
for t in "${targets[@]}"; do
  echo "fuzz.sh: running $t for ${seconds}s" >&2
  cargo fuzz run --sanitizer "$sanitizer" "$t" "fuzz/corpus/$t" "fuzz/seeds/$t" -- "${flags[@]}" \
    >"fuzz/target/logs/$t.log" 2>&1 &
  pids+=($!)
done
status=0
for k in "${!targets[@]}"; do
  t=${targets[$k]}
  set +e
  wait "${pids[$k]}"
  rc=$?
  set -e
  grep -E '^(Done|stat::number_of_executed_units|stat::new_units_added|stat::peak_rss_mb)' "fuzz/target/logs/$t.log" | sed "s/^/$t: /" ||
    tail -n 5 "fuzz/target/logs/$t.log"
  if [ $rc -ne 0 ]; then
    echo "fuzz.sh: $t FAILED (exit $rc); see fuzz/target/logs/$t.log and fuzz/artifacts/$t/" >&2
    grep -E 'panicked at|SUMMARY|Test unit written' "fuzz/target/logs/$t.log" | head -n 10 >&2 || true
    status=1
  else
    echo "fuzz.sh: $t ok" >&2
  fi
done
exit $status
