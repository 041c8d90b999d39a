#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz/CMakeLists.txt, clang-14) and runs each for SECONDS (default 120)
# on its corpus in tests/fuzz/corpus/FORMAT. New inputs go to a scratch folder, not into the repository; a
# crash or hang leaves its input in build-fuzz/artifacts/ and fails the script: add that input to the corpus
# (it then runs in ctest's fuzz_replay_FORMAT) and fix the parser.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
SECONDS_EACH=${1:-120}
BUILD=${FUZZ_BUILD_DIR:-build-fuzz}
cmake -S tests/fuzz -B "$BUILD" -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$BUILD" -j2
echo "fuzz: build took ${SECONDS} s"
mkdir -p "$BUILD/artifacts"
for format in edgelist edgelist_ids mtx metis dimacs obj gml; do
  scratch="$BUILD/new-corpus/$format"
  mkdir -p "$scratch"
  echo "fuzz: $format for ${SECONDS_EACH} s"
  # -timeout: an input taking over 10 s is a hang; -rss_limit_mb: the parsers must stay small.
  status=0
  "$BUILD/fuzz_$format" -max_total_time="$SECONDS_EACH" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$BUILD/artifacts/$format-" "$scratch" "tests/fuzz/corpus/$format" \
    >"$BUILD/$format.log" 2>&1 || status=$?
  grep -E "^stat::(number_of_executed_units|peak_rss_mb)|ERROR|SUMMARY|Test unit written" "$BUILD/$format.log" || true
  if [[ $status -ne 0 ]]; then
    tail -40 "$BUILD/$format.log" >&2
    echo "fuzz: $format FAILED (exit $status); the input is in $BUILD/artifacts/" >&2
    exit 1
  fi
done
echo "fuzz: every format ran ${SECONDS_EACH} s without a finding"
