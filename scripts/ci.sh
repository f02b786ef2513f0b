#!/usr/bin/env bash
# Everything CI checks, in order; stops at the first failing step (the test step runs all three
# runtimes before failing).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
. scripts/toolchain.sh
step() { echo; echo "=== $*"; }
step "check: fmt, lint, type-check, doc lint, doc examples"
deno fmt --check
deno lint
deno check mod.ts src/ tests/ examples/ bench/ scripts/
# The committed web console bundle matches its sources (tests/channels/web/page_bundle.test.ts
# checks the same on every runtime).
deno run -A scripts/build_web.ts --check
deno run -A scripts/build_vendor.ts --check
# Every module the package exports (deno.json "exports"), linted together: a type one of them shows
# must be exported by one of them.
mapfile -t exported < <(deno eval 'const j = JSON.parse(Deno.readTextFileSync("deno.json")); for (const p of Object.values(j.exports)) console.log(p)')
deno doc --lint "${exported[@]}"
# Every symbol the public entries export has an @example (std's rule).
deno run -A scripts/check_examples.ts
# Every code block in the doc comments (the @example of each public symbol, module docs) is
# type-checked and run as a test. `deno task check` only type-checks them (deno check --doc): each
# block runs as its own module, about 0.3 s of CPU apiece.
deno test --doc --parallel -A mod.ts src/
step "tests on Deno, Node 24 and Bun (with a throwaway PostgreSQL: its tests must run here)"
BUB_TEST_POSTGRES_REQUIRED=1 bash scripts/postgres.sh -- bash scripts/test_all.sh
step "publish dry run (JSR, no slow types)"
deno publish --dry-run --allow-dirty
step "JSR route (package served over HTTP, npm: specifiers; README example and the CLI)"
bash scripts/smoke_jsr.sh
step "npm build"
deno run -A scripts/build_npm.ts
step "npm smoke test (Node 22, Node 24, Bun, Deno; tsc consumer; publint)"
bash scripts/smoke_npm.sh
echo
echo "ci: all steps passed"
