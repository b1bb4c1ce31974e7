#!/usr/bin/env bash
# The long fuzz run: the same properties as test/http/fuzz.test.ts with many more cases per route
# and a fresh seed each time (printed; rerun one with FUZZ_SEED=<seed>).
#   npm run fuzz                       # 1000 cases per route, random seed
#   FUZZ_RUNS=5000 FUZZ_SEED=42 npm run fuzz
set -euo pipefail
cd "$(dirname "$0")/.."
export SERVICE_ENV=test
export FUZZ_RUNS="${FUZZ_RUNS:-1000}"
export FUZZ_SEED="${FUZZ_SEED:-$(( (RANDOM << 15) | RANDOM ))}"
echo "fuzz: ${FUZZ_RUNS} cases per route, seed ${FUZZ_SEED}"
exec node --import tsx --test --test-timeout=0 --test-reporter=spec test/http/fuzz.test.ts
