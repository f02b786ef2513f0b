#!/usr/bin/env bash
# Packs the npm build, installs the tarball into a temporary project and checks that every export
# imports and a tiny turn runs on Node 22, Node 24, Bun and Deno; type-checks a consumer file with
# tsc 7; runs the `bub` bin; runs publint. Expects `deno task build:npm` to have run.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[ -f "$root/npm/package.json" ] || { echo "smoke:npm: run 'deno task build:npm' first" >&2; exit 1; }
# Node 22 (the oldest Node Bub runs on) and Node 20 (refused with a message), from npm.
BUB_TOOLCHAIN_OLD_NODES="22 20" bash "$root/scripts/toolchain.sh"
# The bundles are pure ASCII: one non-ASCII character (even in a comment) makes Node decode a whole
# file into a two-byte string (build_npm.ts escapes them).
if LC_ALL=C grep -rlP '[^\x00-\x7F]' --include='*.js' "$root/npm/dist" >&2; then
  echo "smoke:npm: the files above in npm/dist are not pure ASCII" >&2
  exit 1
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd "$root/npm" && npm pack --silent --pack-destination "$tmp" >/dev/null)
tarball="$(ls "$tmp"/*.tgz)"
cd "$tmp"
cat >package.json <<'JSON'
{ "name": "bub-smoke", "private": true, "type": "module" }
JSON
npm install --no-audit --no-fund --loglevel=error "$tarball" @types/node@24 >/dev/null
cat >smoke.mjs <<'JS'
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import * as core from "@bub/core";
import * as testing from "@bub/core/testing";
import * as cli from "@bub/core/cli";
import * as skillsModule from "@bub/core/skills";
const childProcessAtImport = process.moduleLoadList?.includes("NativeModule child_process");
// Every subpath imports and exports something.
for (const sub of ["kernel", "tape", "agent", "tools", "channels", "environment", "skills", "builtin"]) {
  const module = await import(`@bub/core/${sub}`);
  assert.ok(Object.keys(module).length > 0, `@bub/core/${sub} exports nothing`);
  // A class (or function, or constant) is the same object from the root and from the subpath.
  for (const [name, value] of Object.entries(module)) {
    if (name in core) assert.equal(core[name], value, `@bub/core/${sub} ${name} is not the root's`);
  }
}
assert.equal(testing.MemoryChannel, (await import("@bub/core/channels")).MemoryChannel);
assert.equal(typeof core.BubFramework, "function");
assert.equal(typeof testing.ScriptedModel, "function");
assert.equal(typeof cli.main, "function");
const home = mkdtempSync(tmpdir() + "/bub-smoke-");
// A plugin turn.
const echo = new core.BubFramework({ home, configFile: home + "/config.yml", loadDotenv: false });
echo.loadBuiltinHooks();
assert.ok(echo instanceof (await import("@bub/core/kernel")).KernelFramework);
echo.register(core.definePlugin({
  name: "echo",
  buildPrompt: ({ message }) => `[echo] ${core.contentOf(message)}`,
  runModel: ({ prompt }) => String(prompt),
}));
let scope = await echo.running();
try {
  const result = await echo.processInbound({ channel: "cli", chatId: "local", content: "hi" });
  assert.equal(result.modelOutput, "[echo] hi");
} finally {
  await scope[Symbol.asyncDispose]();
}
// The pinned createCliApp() works from the root (commander is bundled in, see build_npm.ts), and
// on Node importing the root loaded no `node:child_process` (commander takes it only to spawn).
const app = echo.createCliApp();
assert.equal(app.name(), "bub");
assert.ok(app.commands.some((command) => command.name() === "run"), "no run command");
assert.ok(!childProcessAtImport, "importing @bub/core loaded node:child_process");
// A builtin agent turn with a tool call, against the mock model over HTTP.
const server = await testing.MockLlmServer.start({ script: testing.demoResponder });
try {
  const bub = new core.BubFramework({
    home, workspace: home, configFile: home + "/config.yml", loadDotenv: false,
    builtin: { env: { BUB_MODEL: "custom:demo", BUB_API_BASE: server.url, BUB_API_KEY: "k" } },
  });
  bub.loadBuiltinHooks();
  scope = await bub.running();
  try {
    const result = await bub.processInbound({ content: "run echo smoke" }, { stream: true });
    assert.match(result.modelOutput, /The command printed:[\s\S]*smoke/);
  } finally {
    await scope[Symbol.asyncDispose]();
  }
} finally {
  await server.close();
}
const skills = skillsModule.discoverSkills({ workspace: home }).map((skill) => skill.name);
assert.deepEqual(skills.filter((name) => ["gh", "skill-creator", "telegram"].includes(name)).sort(), ["gh", "skill-creator", "telegram"]);
console.log("SMOKE OK");
JS
cat >consumer.ts <<'TS'
import { BubFramework, definePlugin, type TurnResult } from "@bub/core";
import { ScriptedModel } from "@bub/core/testing";
const plugin = definePlugin({ name: "x", runModel: ({ prompt }) => String(prompt) });
const bub: BubFramework = new BubFramework();
bub.register(plugin).register(new ScriptedModel(["ok"]));
export const result: Promise<TurnResult> = bub.processInbound({ content: "hi" });
TS
cat >tsconfig.json <<'JSON'
{ "compilerOptions": { "module": "NodeNext", "moduleResolution": "NodeNext", "target": "ES2022",
  "lib": ["ES2023", "ESNext.Disposable", "DOM"], "types": ["node"], "strict": true, "noEmit": true },
  "files": ["consumer.ts"] }
JSON
# A bundled consumer: esbuild (the default CommonJS output, and ES modules) of an app importing
# @bub/core and @bub/core/testing must build, run a turn and exit on its own.
cat >app.ts <<'TS'
import { BubFramework, contentOf, definePlugin } from "@bub/core";
import { demoResponder, MockLlmServer } from "@bub/core/testing";

const echo = definePlugin({
  name: "echo",
  buildPrompt: ({ message }) => `[echo] ${contentOf(message)}`,
});
// No top-level await: the default (CommonJS) output of esbuild does not support it.
async function main(): Promise<void> {
  const server = await MockLlmServer.start({ script: demoResponder });
  try {
    const home = process.env.BUB_HOME!;
    const bub = new BubFramework({
      home, workspace: home, configFile: home + "/config.yml",
      builtin: { env: { BUB_MODEL: "custom:demo", BUB_API_BASE: server.url, BUB_API_KEY: "k" } },
    });
    bub.loadBuiltinHooks();
    bub.register(echo);
    const scope = await bub.running();
    try {
      const result = await bub.processInbound({ channel: "cli", chatId: "local", content: "hi" });
      if (!result.modelOutput.includes("[echo] hi")) throw new Error(`unexpected: ${result.modelOutput}`);
    } finally {
      await scope[Symbol.asyncDispose]();
    }
  } finally {
    await server.close();
  }
  console.log("bundle OK");
}
main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
TS
esbuild="$root/node_modules/.bin/esbuild"
"$esbuild" app.ts --bundle --platform=node --outfile=app.cjs --log-level=error
"$esbuild" app.ts --bundle --platform=node --format=esm --outfile=app.mjs --log-level=error \
  --banner:js="import { createRequire as topLevelCreateRequire } from 'node:module'; const require = topLevelCreateRequire(import.meta.url);"
# The README's recipe with top-level await (ES modules only), exactly as the README gives it.
cat >app_tla.ts <<'TS'
import { BubFramework } from "@bub/core";
import { demoResponder, MockLlmServer } from "@bub/core/testing";
await using server = await MockLlmServer.start({ script: demoResponder });
const home = process.env.BUB_HOME!;
const bub = new BubFramework({
  home, workspace: home, configFile: home + "/config.yml",
  builtin: { env: { BUB_MODEL: "custom:demo", BUB_API_BASE: server.url, BUB_API_KEY: "k" } },
});
bub.loadBuiltinHooks();
{
  await using _scope = await bub.running();
  const result = await bub.processInbound({ channel: "cli", chatId: "local", content: "hello" });
  if (!result.modelOutput.includes("hello")) throw new Error(`unexpected: ${result.modelOutput}`);
}
console.log("bundle OK");
TS
readme_banner="$(sed -n 's/^  --banner:js="\(.*\)"$/\1/p' "$root/README.md")"
[ -n "$readme_banner" ] || { echo "smoke:npm: the README's esbuild banner is missing" >&2; exit 1; }
"$esbuild" app_tla.ts --bundle --platform=node --format=esm --outfile=app_tla.mjs --log-level=error \
  --banner:js="$readme_banner"
mkdir -p bundle-home
for bundle in app.cjs app.mjs app_tla.mjs; do
  printf '%s (node24): ' "$bundle"
  BUB_HOME="$PWD/bundle-home" timeout 60 "$root/.tools/bin/node24" "$bundle"
done
tools="$root/.tools/bin"
for runtime in "$tools/node22" "$tools/node24" "$tools/bun"; do
  printf '%s: ' "$(basename "$runtime")"; "$runtime" smoke.mjs
done
printf 'deno: '; "$tools/deno" run -A smoke.mjs
# Node pays ~0.6 ms per file it loads: the root's static graph stays a handful of files (chunks
# loaded together are merged, scripts/_npm_merge.ts; it was 42 files before).
cat >files.mjs <<'JS'
import { registerHooks } from "node:module";
const files = [];
registerHooks({ load(url, context, next) { if (url.includes("/@bub/core/")) files.push(url); return next(url, context); } });
await import("@bub/core");
if (files.length > 12) throw new Error(`importing @bub/core loads ${files.length} files:\n${files.join("\n")}`);
console.log(`root import: ${files.length} files`);
JS
"$tools/node24" files.mjs
printf 'bin: '; "$tools/node22" node_modules/@bub/core/dist/src/cli/bin.js hooks | head -n 3 | tr '\n' ' '; echo
printf 'bin (bun): '; "$tools/bun" node_modules/@bub/core/dist/src/cli/bin.js --version
# Node 20: the bin and the library say which Node Bub needs instead of failing later.
old_bin="$("$tools/node20" node_modules/@bub/core/dist/src/cli/bin.js run --demo hi 2>&1 || true)"
case "$old_bin" in
  "bub: Bub needs Node >= 22.12 (found 20."*) echo "node20 bin: refused with the version" ;;
  *) echo "smoke:npm: under Node 20 the bin printed: $old_bin" >&2; exit 1 ;;
esac
cat >old_node.mjs <<'JS'
import { BubFramework } from "@bub/core";
try {
  new BubFramework();
  throw new Error("Node 20 was not refused");
} catch (error) {
  if (!/^Bub needs Node >= 22\.12 \(found 20\./.test(error.message) || error.kind !== "config") throw error;
  console.log("node20 library: refused with the version");
}
JS
"$tools/node20" old_node.mjs
"$root/node_modules/.bin/tsc" -p . && echo "consumer type-check OK"
"$root/node_modules/.bin/publint" "$root/npm"
# Consumer type-check against this tarball with TypeScript 5.9 and 7 (strict; bundler, nodenext).
bash "$root/scripts/check_consumer_types.sh" "$tarball"
