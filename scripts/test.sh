#!/usr/bin/env bash
# The whole test suite: type check, then every test file under test/ with node's test runner.
# Integration tests use the embedded PostgreSQL and, when reachable, the external one at
# TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh --test
npx tsc --noEmit -p tsconfig.json
npx tsc --noEmit -p web/tsconfig.json
export SERVICE_ENV=test
# The longest files first (as measured on the 2-core machine, longest first), then the rest in
# name order: the runners then end together instead of one running the last long file alone.
slowest=(
  test/e2e/corpus.test.ts test/e2e/long-call.test.ts test/e2e/durability.test.ts
  test/e2e/contained-media.test.ts test/e2e/voice-match.test.ts test/e2e/crash-stages-external.test.ts
  test/e2e/crash-stages.test.ts test/e2e/failures.test.ts test/e2e/search.test.ts test/http/conversation-metrics.test.ts
  test/e2e/stage-resume.test.ts test/pipeline/diarization-real.test.ts test/e2e/console.test.ts
  test/store/embedded-postgres.test.ts test/e2e/scale-out.test.ts test/http/auth.test.ts
)
files=$( (printf '%s\n' "${slowest[@]}"; find test -name '*.test.ts' | sort) | awk '!seen[$0]++')
for f in "${slowest[@]}"; do [ -f "$f" ] || { echo "scripts/test.sh: $f is gone; update the list" >&2; exit 1; }; done
# Three files at a time on two cores: about half of the suite's time is waiting, not computing
# (service and database start-up, retry delays, crash-and-restart chains), so a third runner
# fills the cores; the speech tests carry no machine-speed limit of their own.
exec node --import tsx --test --test-concurrency=3 --test-timeout=900000 --test-reporter=spec "$@" $files
