#!/usr/bin/env bash
# The JSR route: serves the package over HTTP on 127.0.0.1 as JSR serves it (scripts/jsr_serve.ts:
# published files only, bare specifiers unfurled to npm:), then, from a folder with no config,
# runs a README-style plugin example importing <url>/mod.ts and <url>/src/testing/mod.ts, and
# `deno run -A <url>/src/cli/mod.ts run "hi"` against MockLlmServer. Run with
# `deno task smoke:jsr`.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
deno="$root/.tools/bin/deno"
tmp="$(mktemp -d)"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT

# first_line <file>: waits (up to 60 s) for the first line a background process prints.
first_line() {
  for _ in $(seq 600); do
    if [ -s "$1" ] && head -n 1 "$1" | grep -q .; then head -n 1 "$1"; return; fi
    sleep 0.1
  done
  echo "smoke:jsr: no output in $1:" >&2
  cat "$1" >&2
  exit 1
}

"$deno" run -A "$root/scripts/jsr_serve.ts" "$root" >"$tmp/serve.out" 2>&1 &
pids+=($!)
base="$(first_line "$tmp/serve.out")"
echo "serving the package at $base"

mkdir -p "$tmp/project" "$tmp/home"
cd "$tmp/project"
cat >example.ts <<TS
import assert from "node:assert/strict";
import { BubFramework, contentOf, definePlugin } from "${base}mod.ts";
import { discoverSkills, parseFrontmatter } from "${base}src/skills/mod.ts";
import { renderMarkdown } from "${base}src/channels/mod.ts";
import { demoResponder, MockLlmServer } from "${base}src/testing/mod.ts";

const home = Deno.makeTempDirSync();
// The README's plugin: a turn through the builtin hooks.
const echo = definePlugin({
  name: "echo",
  buildPrompt: ({ message }) => \`[echo] \${contentOf(message)}\`,
  runModel: ({ prompt }) => String(prompt),
});
const bub = new BubFramework({ home, workspace: home, configFile: home + "/config.yml" });
bub.loadBuiltinHooks();
bub.register(echo);
{
  await using _ = await bub.running();
  const result = await bub.processInbound({ channel: "cli", chatId: "local", content: "hi" });
  assert.equal(result.modelOutput, "[echo] hi");
}
// Synchronous helpers need no preload step.
assert.deepEqual(parseFrontmatter("---\nname: x\n---\nbody"), { name: "x" });
assert.match(renderMarkdown("# Title"), /Title/);
// Skill discovery works; the builtin skills are not on disk when loaded from a URL.
assert.deepEqual(discoverSkills({ workspace: home }), []);
// A builtin agent turn with a tool call, against the mock model over HTTP.
const server = await MockLlmServer.start({ script: demoResponder });
try {
  const agent = new BubFramework({
    home, workspace: home, configFile: home + "/config.yml",
    builtin: { env: { BUB_MODEL: "custom:demo", BUB_API_BASE: server.url, BUB_API_KEY: "k" } },
  });
  agent.loadBuiltinHooks();
  await using _ = await agent.running();
  const result = await agent.processInbound({ content: "run echo smoke" }, { stream: true });
  assert.match(result.modelOutput, /The command printed:[\s\S]*smoke/);
} finally {
  await server.close();
}
console.log("JSR example OK");
TS
remote=(--no-config --no-lock --reload="$base")
HOME="$tmp/home" BUB_HOME="$tmp/home/.bub" "$deno" run -A "${remote[@]}" example.ts

"$deno" run -A "$root/scripts/mock_llm.ts" >"$tmp/mock.out" 2>&1 &
pids+=($!)
mock="$(first_line "$tmp/mock.out" | sed 's/.* on //')"
printf 'cli: '
out="$(HOME="$tmp/home" BUB_HOME="$tmp/home/.bub" BUB_MODEL=custom:demo BUB_API_BASE="$mock" \
  BUB_API_KEY=k NO_COLOR=1 "$deno" run -A "${remote[@]}" "${base}src/cli/mod.ts" run "hi")"
grep -q "You said:\*\* hi" <<<"$out" || { echo "unexpected CLI output:"; echo "$out"; exit 1; }
echo "deno run -A <url>/src/cli/mod.ts run \"hi\" OK"
echo "smoke:jsr OK"
