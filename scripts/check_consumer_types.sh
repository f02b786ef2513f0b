#!/usr/bin/env bash
# Type-checks the consumer project tests/fixtures/consumer/ (strict; moduleResolution bundler and
# nodenext) against the npm build with TypeScript 5.9 and TypeScript 7 (the repo's tsc).
# Usage: scripts/check_consumer_types.sh [path/to/bub-core.tgz]
# Without a tarball it packs npm/ (run `deno task build:npm` first). TypeScript 5.9 and
# @types/node are installed from the npm registry into a temporary project with the tarball.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
tarball="${1:-}"
if [ -z "$tarball" ]; then
  [ -f "$root/npm/package.json" ] || { echo "check:consumer: run 'deno task build:npm' first" >&2; exit 1; }
  (cd "$root/npm" && npm pack --silent --pack-destination "$tmp" >/dev/null)
  tarball="$(ls "$tmp"/*.tgz)"
fi
tarball="$(cd "$(dirname "$tarball")" && pwd)/$(basename "$tarball")"
project="$tmp/consumer"
mkdir -p "$project"
cp "$root"/tests/fixtures/consumer/*.ts "$root"/tests/fixtures/consumer/tsconfig.*.json "$project/"
cd "$project"
echo '{ "name": "bub-consumer", "private": true, "type": "module" }' >package.json
npm install --no-audit --no-fund --loglevel=error "$tarball" @types/node@24 typescript5@npm:typescript@5.9 >/dev/null
tsc5="$project/node_modules/typescript5/bin/tsc"
tsc7="$root/node_modules/.bin/tsc"
status=0
for config in tsconfig.bundler.json tsconfig.nodenext.json; do
  for tsc in "$tsc5" "$tsc7"; do
    version="$("$tsc" --version)"
    if "$tsc" -p "$config"; then
      echo "consumer type-check OK: $version, $config"
    else
      echo "consumer type-check FAILED: $version, $config" >&2
      status=1
    fi
  done
done
exit $status
