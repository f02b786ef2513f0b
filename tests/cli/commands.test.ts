import { afterEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { MockLlmServer, mockReply } from "../../src/testing/mock_llm_server.ts";
import { hooksCommand } from "../../src/builtin/cli_commands.ts";
import { KernelFramework } from "../../src/kernel/framework.ts";
import { cleanupStack, runCli, tempDirs } from "./_spawn.ts";

const NO_CHANNELS = "No channels are enabled.";

function lastUserText(body: unknown): string {
  const messages = (body as { messages?: { role: string; content: unknown }[] }).messages ?? [];
  const user = messages.filter((message) => message.role === "user").at(-1);
  return typeof user?.content === "string" ? user.content : JSON.stringify(user?.content ?? "");
}

describe("bub run (builtin §16 148)", () => {
  const cleanup = cleanupStack();
  afterEach(() => cleanup.run());

  test('bub run "hi" as a subprocess prints [cli:local] followed by the model output', async () => {
    const dirs = tempDirs();
    const server = await MockLlmServer.start({
      script: [mockReply.text("Hello from the mock", { chunks: 3 })],
    });
    cleanup.defer(async () => {
      await server.close();
      dirs.remove();
    });
    const result = await runCli(dirs, ["run", "hi"], {
      env: { BUB_MODEL: "custom:x", BUB_API_BASE: server.url, BUB_API_KEY: "sk-run" },
    });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, "[cli:local]\nHello from the mock\n");
    assert.equal(server.requests.length, 1);
    assert.equal((server.requests[0]!.body as { model?: string }).model, "x");
    assert.match(lastUserText(server.requests[0]!.body), /hi/);
    assert.equal(server.requests[0]!.headers.authorization, "Bearer sk-run");
  });
});

describe("bub gateway channel selection (builtin §16 147)", () => {
  const cleanup = cleanupStack();
  afterEach(() => cleanup.run());

  test('enabled_channels: "" exits 1 with "No channels are enabled." on stderr', async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    dirs.writeConfig('enabled_channels: ""\n');
    const result = await runCli(dirs, ["gateway"]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, new RegExp(NO_CHANNELS.replace(".", "\\.")));
    assert.equal(result.stdout, "");
  });

  test("an unknown --enable-channel name is reported and, with nothing else enabled, exits 1 with the no-channels message", async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    const result = await runCli(dirs, ["gateway", "--enable-channel", "nope"]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /Unknown channel "nope"/);
    assert.match(result.stderr, /telegram/); // the known names are listed
    assert.match(result.stderr, /No channels are enabled\./);
  });
});

describe("bub hooks (kernel §13 21)", () => {
  const cleanup = cleanupStack();
  afterEach(() => cleanup.run());

  test("bub hooks prints one '<hook>: <plugins>' line per hook, builtin first", async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    const result = await runCli(dirs, ["hooks"]);
    assert.equal(result.code, 0, result.stderr);
    const lines = result.stdout.trimEnd().split("\n");
    assert.ok(lines.length > 5, result.stdout);
    for (const line of lines) assert.match(line, /^[a-zA-Z]+: [\w-]+(, [\w-]+)*$/);
    assert.ok(lines.includes("runModelStream: builtin"), result.stdout);
    assert.ok(lines.includes("provideChannels: builtin"), result.stdout);
  });

  test("the hooks command prints (no hook implementations) for a framework without builtin hooks", () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    const framework = new KernelFramework({
      home: dirs.bubHome,
      configFile: dirs.configFile,
      workspace: dirs.workspace,
      loadDotenv: false,
    });
    let out = "";
    hooksCommand(framework, { out: (text) => void (out += text), err: () => {} });
    assert.equal(out, "(no hook implementations)\n");
  });
});

describe("bad input", () => {
  const cleanup = cleanupStack();
  afterEach(() => cleanup.run());

  test("a malformed config.yml fails with an error naming the file and a non-zero exit", async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    dirs.writeConfig("model: [unclosed\n  enabled_channels: {\n");
    const result = await runCli(dirs, ["hooks"]);
    assert.equal(result.code, 1);
    assert.ok(result.stderr.includes(dirs.configFile), result.stderr);
    assert.match(result.stderr, /Cannot read config file/);
    assert.equal(result.stdout, "");
  });

  test("a config.yml whose top level is not a mapping is rejected naming the file", async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    dirs.writeConfig("- just\n- a list\n");
    const result = await runCli(dirs, ["run", "hi"]);
    assert.equal(result.code, 1);
    assert.ok(result.stderr.includes(dirs.configFile), result.stderr);
    assert.match(result.stderr, /mapping/);
  });

  test("a plugin module that throws on import stops bub hooks with exit 1 and one line naming it (issue 10)", async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    const pluginDir = dirs.bubHome; // beside the config file
    dirs.writeConfig("plugins:\n  - ./broken_plugin.ts\n  - ./good_plugin.ts\n");
    writeFileSync(
      join(pluginDir, "broken_plugin.ts"),
      'throw new Error("broken plugin exploded at import");\nexport default { name: "broken" };\n',
    );
    writeFileSync(
      join(pluginDir, "good_plugin.ts"),
      'export default { name: "good", systemPrompt: (): string => "be good" };\n',
    );
    const result = await runCli(dirs, ["hooks"]);
    assert.equal(result.code, 1, result.stdout);
    assert.equal(result.stdout, "");
    assert.equal(result.stderr.trim().split("\n").length, 1, result.stderr);
    assert.ok(result.stderr.includes(join(pluginDir, "broken_plugin.ts")), result.stderr);
    assert.match(result.stderr, /broken plugin exploded at import/);
  });
});
