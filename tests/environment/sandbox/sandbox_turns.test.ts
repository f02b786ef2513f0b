/**
 * The sandbox through real framework turns: comma commands and the bash tool (its background
 * jobs too) of a session on a non-terminal channel run sandboxed under the default `sandbox:
 * remote`; the local terminal's sessions do not; `off` and `all` move that line.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { BubFramework } from "../../../src/builtin/framework.ts";
import { mockReply } from "../../../src/testing/mock_llm_server.ts";
import { turnFixture } from "../../agent/_turn_fixture.ts";
import {
  bwrapPids,
  type Layout,
  layout,
  leaksNothing,
  listener,
  PLANTED,
  SKIP,
} from "./_helpers.ts";

/** Host processes running `sleep <marker>`. */
function hostSleeps(marker: string): number {
  let count = 0;
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, "utf8").replaceAll("\0", " ");
      if (cmdline.startsWith(`sleep ${marker}`)) count++;
    } catch { /* exited meanwhile */ }
  }
  return count;
}

async function eventually(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A running framework over `dirs` with `config` (YAML) in its home. */
async function framework(dirs: Layout, config = "") {
  writeFileSync(join(dirs.bubHome, "config.yml"), `api_key: ${PLANTED.config}\n${config}`);
  const bub = new BubFramework({ home: dirs.bubHome, workspace: dirs.workspace });
  bub.loadBuiltinHooks();
  const scope = await bub.running();
  /** The turn's answer, or the message of the error a failed command ends it with. */
  const say = async (channel: string, content: string): Promise<string> => {
    try {
      return (await bub.processInbound({ channel, chatId: "c1", content })).modelOutput;
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  };
  return { say, [Symbol.asyncDispose]: () => scope[Symbol.asyncDispose]() };
}

describe("sandbox through framework turns", { skip: SKIP }, () => {
  let dirs: Layout;
  const savedHome = process.env.HOME;
  before(() => {
    dirs = layout();
    process.env.HOME = dirs.home; // the profile's $HOME, holding the planted ~/.ssh key
  });
  after(() => {
    process.env.HOME = savedHome;
    dirs?.remove();
  });

  test("web: ,cat <BUB_HOME>/config.yml fails and shows nothing of it", async () => {
    await using bub = await framework(dirs);
    const output = await bub.say("web", `,cat ${join(dirs.bubHome, "config.yml")}`);
    assert.ok(leaksNothing(output), output);
    assert.match(output, /No such file/);
  });

  test("telegram: ,cat of a tape and of ~/.ssh/id_ed25519 fail", async () => {
    await using bub = await framework(dirs);
    const tape = await bub.say("telegram", `,cat ${join(dirs.bubHome, "tapes", "web__x.jsonl")}`);
    const key = await bub.say("telegram", ",cat ~/.ssh/id_ed25519");
    assert.ok(leaksNothing(tape + key), tape + key);
  });

  test("web: Bub's pid is not there to read or kill, and Bub answers afterwards", async () => {
    await using bub = await framework(dirs);
    const environ = await bub.say("web", `,cat /proc/${process.pid}/environ`);
    assert.match(environ, /No such file/);
    await bub.say("web", `,kill -9 ${process.pid}`);
    assert.equal(await bub.say("web", ",echo alive"), "alive");
  });

  test("web: a background bash job runs sandboxed too", async () => {
    await using bub = await framework(dirs);
    const started = await bub.say(
      "web",
      `,bash command='cat ${
        join(dirs.bubHome, "config.yml")
      }; ls /proc | grep -c "^[0-9]"' background=true`,
    );
    const id = /bash-[0-9a-f]{8}/.exec(started)?.[0];
    assert.ok(id, started);
    let output = "";
    const deadline = Date.now() + 10_000;
    while (!/status: exited/.test(output) && Date.now() < deadline) {
      output = await bub.say("web", `,bash.output shell_id=${id}`);
    }
    assert.match(output, /status: exited/);
    assert.ok(leaksNothing(output), output);
    const count = Number(/output:\n(?:.*\n)*?(\d+)\s*$/.exec(output)?.[1]);
    assert.ok(count < 6, output);
  });

  test("web: jobs a command leaves behind are gone with it; a background shell with the scope", async () => {
    const marker = `${500 + (process.pid % 83)}.77`;
    {
      await using bub = await framework(dirs);
      assert.equal(await bub.say("web", `,sleep ${marker} & echo started`), "started");
      await eventually(() => hostSleeps(marker) === 0, "the left-behind job to be gone");
      await bub.say("web", `,bash command='sleep ${marker} & sleep ${marker}' background=true`);
      await eventually(() => hostSleeps(marker) === 2, "the background shell's jobs to start");
    }
    await eventually(() => hostSleeps(marker) === 0, "the background shell's jobs to be gone");
  });

  test("cli (the local terminal's channel) stays on the host under sandbox: remote", async () => {
    await using bub = await framework(dirs);
    const output = await bub.say("cli", `,cat ${join(dirs.bubHome, "config.yml")}`);
    assert.match(output, new RegExp(PLANTED.config));
  });

  test("sandbox: off leaves a web session on the host", async () => {
    await using bub = await framework(dirs, "sandbox: off\n");
    const output = await bub.say("web", `,cat ${join(dirs.bubHome, "config.yml")}`);
    assert.match(output, new RegExp(PLANTED.config));
  });

  test("sandbox: all sandboxes the cli channel too", async () => {
    await using bub = await framework(dirs, "sandbox: all\n");
    const output = await bub.say("cli", `,cat ${join(dirs.bubHome, "config.yml")}`);
    assert.ok(leaksNothing(output), output);
  });

  test("sandbox_network: on lets a web session reach a listener on 127.0.0.1; off does not", async () => {
    await using server = await listener();
    const connect = `,exec 3<>/dev/tcp/127.0.0.1/${server.port} && cat <&3`;
    await using off = await framework(dirs);
    assert.doesNotMatch(await off.say("web", connect), /pong/);
    assert.equal(server.connections, 0);
    await using on = await framework(dirs, "sandbox_network: on\n");
    assert.equal(await on.say("web", connect), "pong");
    assert.equal(server.connections, 1);
  });

  test("a skill script under ~/.agents/skills runs from a web session (shown read-only)", async () => {
    const scripts = join(dirs.home, ".agents", "skills", "greet", "scripts");
    mkdirSync(scripts, { recursive: true });
    writeFileSync(join(scripts, "hello.sh"), "#!/bin/sh\necho hello from the skill\n", {
      mode: 0o755,
    });
    await using bub = await framework(dirs);
    assert.equal(
      await bub.say("web", `,bash ${join(scripts, "hello.sh")}`),
      "hello from the skill",
    );
    const write = await bub.say("web", `,touch ${join(scripts, "dropped")}`);
    assert.match(write, /Read-only file system/);
  });
});

describe("the system prompt of a sandboxed session", { skip: SKIP }, () => {
  test("says what the commands reach on web, and nothing changes for the terminal", async () => {
    await using fx = await turnFixture({ script: [mockReply.text("a"), mockReply.text("b")] });
    await fx.turn({ channel: "web", chatId: "w", content: "hi" });
    await fx.turn({ channel: "cli", chatId: "local", content: "hi" });
    const [web, cli] = fx.bodies().map((body) => JSON.stringify(body));
    assert.match(web!, /<sandbox>/);
    assert.match(web!, /The network is off/);
    assert.ok(web!.includes(fx.home), "names the workspace");
    assert.doesNotMatch(cli!, /<sandbox>/);
  });
});

describe("the spare sandbox of a turn", { skip: SKIP }, () => {
  test("a web turn starts its session's sandbox while the model is asked; closing ends it", async () => {
    /** Whether a bwrap of this process ran while the model answered (polled for up to 5 s). */
    let seen = false;
    const fx = await turnFixture({
      script: [async () => {
        const deadline = Date.now() + 5_000;
        while (!(seen = bwrapPids().size > 0) && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        return mockReply.text("a");
      }],
    });
    try {
      await fx.turn({ channel: "web", chatId: "w", content: "hi" });
      assert.ok(seen, "a spare sandbox was started before the session ran any command");
    } finally {
      await fx[Symbol.asyncDispose]();
    }
    // The session ran no command: its spare ends with the running scope, not 30 s later.
    await eventually(() => bwrapPids().size === 0, "no bwrap after the scope closed", 5_000);
  });
});
