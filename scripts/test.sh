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
files=$(find test -name '*.test.ts' | sort)
# Two files at a time: the machine has two cores and the speech tests are CPU-bound.
exec node --import tsx --test --test-concurrency=2 --test-timeout=600000 --test-reporter=spec "$@" $files
