#!/usr/bin/env bash
# Runs the suite on Deno, Node 24 and Bun (each even when another failed), then prints one line
# "N passed, M failed" summing the three. Exit status: non-zero when any runtime failed.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
. scripts/toolchain.sh
logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT
status=0
strip() { sed -e 's/\x1b\[[0-9;]*m//g'; }

echo "== deno test"
deno test -A --parallel tests/ 2>&1 | tee "$logs/deno.log" || status=1
echo "== node --test (Node $(node24 --version))"
# One compile cache for every test file's process (each strips and compiles the sources again).
NODE_COMPILE_CACHE="$logs/node-compile-cache" node24 --test --test-concurrency=2 'tests/**/*.test.ts' 2>&1 |
  tee "$logs/node.log" || status=1
echo "== bun test"
bun test --timeout 60000 tests/ 2>&1 | tee "$logs/bun.log" || status=1

deno_line="$(strip <"$logs/deno.log" | grep -E '^(ok|FAILED) \| [0-9]+ passed' | tail -n 1)"
deno_pass="$(echo "$deno_line" | sed -nE 's/.* ([0-9]+) passed.*/\1/p')"
deno_fail="$(echo "$deno_line" | sed -nE 's/.* ([0-9]+) failed.*/\1/p')"
node_pass="$(strip <"$logs/node.log" | sed -nE 's/^. pass ([0-9]+)$/\1/p' | tail -n 1)"
node_fail="$(strip <"$logs/node.log" | sed -nE 's/^. fail ([0-9]+)$/\1/p' | tail -n 1)"
node_cancel="$(strip <"$logs/node.log" | sed -nE 's/^. cancelled ([0-9]+)$/\1/p' | tail -n 1)"
bun_pass="$(strip <"$logs/bun.log" | sed -nE 's/^ *([0-9]+) pass$/\1/p' | tail -n 1)"
bun_fail="$(strip <"$logs/bun.log" | sed -nE 's/^ *([0-9]+) fail$/\1/p' | tail -n 1)"
for v in deno_pass deno_fail node_pass node_fail node_cancel bun_pass bun_fail; do
  if [ -z "${!v}" ]; then
    case "$v" in *_fail|*_cancel) printf -v "$v" '%s' 0 ;; *) printf -v "$v" '%s' 0; status=1; echo "test_all: could not read $v" >&2 ;; esac
  fi
done
passed=$((deno_pass + node_pass + bun_pass))
failed=$((deno_fail + node_fail + node_cancel + bun_fail))
[ "$failed" -eq 0 ] || status=1
echo "deno: $deno_pass passed, $deno_fail failed; node: $node_pass passed, $((node_fail + node_cancel)) failed; bun: $bun_pass passed, $bun_fail failed"
echo "$passed passed, $failed failed" >"$root/.tools/test-summary.txt"
echo "$passed passed, $failed failed"
exit "$status"
