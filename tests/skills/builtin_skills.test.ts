import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { existsSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { getConfigValue } from "../../src/builtin/settings.ts";
import { renderSkillBody } from "../../src/skills/body.ts";
import { builtinSkillsDir, discoverSkills } from "../../src/skills/discovery.ts";
import type { Skill } from "../../src/skills/skill.ts";
import { tempDir, writeSkillFile } from "./_helpers.ts";

const SCRIPTS = {
  validate: join(builtinSkillsDir(), "skill-creator", "scripts", "validate_skill.ts"),
  init: join(builtinSkillsDir(), "skill-creator", "scripts", "init_skill.ts"),
  telegram: join(builtinSkillsDir(), "telegram", "scripts", "telegram.ts"),
};

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a bundled TypeScript script with the runtime running this test. */
function runScript(script: string, args: string[], env: Record<string, string> = {}): Promise<Run> {
  const versions = process.versions as Record<string, string | undefined>;
  const argv = versions.deno ? ["run", "-A", script, ...args] : [script, ...args];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv, {
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (chunk) => (stdout += chunk));
    child.stderr!.on("data", (chunk) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

function builtin(name: string): Skill {
  const skill = discoverSkills({ workspace: "/nonexistent", home: "/nonexistent" }).find((s) =>
    s.name === name
  );
  assert.ok(skill, `builtin skill ${name} not found`);
  return skill;
}

describe("builtin skills (§7.5)", () => {
  test("every builtin skill passes the skill-creator validator", async () => {
    for (const name of ["gh", "telegram", "skill-creator"]) {
      const run = await runScript(SCRIPTS.validate, [join(builtinSkillsDir(), name)]);
      assert.equal(run.stdout, "Skill is valid!\n", `${name}: ${run.stdout}${run.stderr}`);
      assert.equal(run.code, 0);
    }
  });

  test("the validator is stricter than the loader: extra keys, angle brackets and bad names are reported", async (t) => {
    const tmp = tempDir();
    t.after(tmp.cleanup);
    const dir = writeSkillFile(
      tmp.path,
      "-bad",
      "---\nname: -bad\ndescription: uses <b>html</b>\nversion: 2\n---\nBody\n",
    );
    const run = await runScript(SCRIPTS.validate, [dir]);
    assert.equal(run.code, 1);
    assert.match(run.stdout, /^Skill is invalid:\n/);
    assert.match(run.stdout, /- Unexpected frontmatter key\(s\): version/);
    assert.match(run.stdout, /- name "-bad" must not start or end with a hyphen/);
    assert.match(run.stdout, /- description must not contain angle brackets/);
    const missing = await runScript(SCRIPTS.validate, [join(tmp.path, "nothing")]);
    assert.equal(missing.code, 1);
    assert.match(missing.stdout, /SKILL\.md not found/);
  });

  test("init_skill creates a skill the loader discovers and the validator accepts; it refuses bad names and existing folders", async (t) => {
    const tmp = tempDir();
    t.after(tmp.cleanup);
    const parent = join(tmp.path, ".agents", "skills");
    const created = await runScript(SCRIPTS.init, [
      "release-notes",
      "--path",
      parent,
      "--resources",
      "scripts,references",
    ]);
    assert.equal(created.code, 0, created.stderr);
    assert.ok(existsSync(join(parent, "release-notes", "scripts")));
    assert.ok(existsSync(join(parent, "release-notes", "references")));
    const skills = discoverSkills({ workspace: tmp.path, home: tmp.path, builtinDirs: [] });
    assert.deepEqual(skills.map((s) => s.name), ["release-notes"]);
    const valid = await runScript(SCRIPTS.validate, [join(parent, "release-notes")]);
    assert.equal(valid.stdout, "Skill is valid!\n");
    const again = await runScript(SCRIPTS.init, ["release-notes", "--path", parent]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /already exists/);
    const bad = await runScript(SCRIPTS.init, ["Bad_Name", "--path", parent]);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /Invalid skill name/);
    assert.ok(!existsSync(join(parent, "Bad_Name")));
  });

  test("the skill-creator body shows placeholders literally but points its own commands at its scripts", () => {
    const skill = builtin("skill-creator");
    const body = renderSkillBody(skill, { runtimeCommand: "RT" });
    assert.match(body, /- `\$SKILL_DIR` \(or `\$\{SKILL_DIR\}`\)/);
    assert.match(body, /- `\$\{config\.<path>\}`/);
    assert.ok(
      body.includes(`RT ${join(builtinSkillsDir(), "skill-creator")}/scripts/validate_skill.ts`),
    );
  });

  test("the telegram body carries the configured token and the script path", () => {
    const skill = builtin("telegram");
    const sources = {
      env: { BUB_TELEGRAM_TOKEN: "123:env" },
      config: { telegram: { token: "123:yaml" } },
    };
    const body = renderSkillBody(skill, {
      config: (path) => getConfigValue(path, sources),
      runtimeCommand: "RT",
    });
    assert.ok(
      body.includes(
        `RT ${join(builtinSkillsDir(), "telegram")}/scripts/telegram.ts send --token '123:env'`,
      ),
    );
    assert.doesNotMatch(body, /\$\{config\./);
  });
});

interface Call {
  method: string;
  body: Record<string, unknown>;
}

async function fakeBotApi(
  t: { after: (fn: () => Promise<void>) => void },
  reply: (call: Call) => [number, Record<string, unknown>],
): Promise<{ root: string; calls: Call[] }> {
  const calls: Call[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let text = "";
    request.on("data", (chunk) => (text += chunk));
    request.on("end", () => {
      const call = { method: request.url!.split("/").pop()!, body: JSON.parse(text || "{}") };
      assert.match(request.url!, /^\/bot123:abc\//);
      calls.push(call);
      const [status, payload] = reply(call);
      response.writeHead(status, { "content-type": "application/json" }).end(
        JSON.stringify(payload),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { root: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls };
}

describe("telegram skill script", () => {
  test("send converts markdown to Telegram HTML, replies to the message and prints the ids", async (t) => {
    let id = 100;
    const api = await fakeBotApi(t, () => [200, { ok: true, result: { message_id: ++id } }]);
    const run = await runScript(SCRIPTS.telegram, [
      "send",
      "--chat-id",
      "42",
      "--reply-to",
      "7",
      "--api-root",
      api.root,
      "**Done** <ok> `a<b`",
    ], { BUB_TELEGRAM_TOKEN: "123:abc" });
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), { ok: true, message_ids: [101] });
    assert.equal(api.calls.length, 1);
    const { method, body } = api.calls[0]!;
    assert.equal(method, "sendMessage");
    assert.equal(body.chat_id, "42");
    assert.equal(body.parse_mode, "HTML");
    assert.equal(body.text, "<b>Done</b> &lt;ok&gt; <code>a&lt;b</code>");
    assert.deepEqual(body.reply_parameters, { message_id: 7, allow_sending_without_reply: true });
  });

  test("rejected markup is resent as plain text; long texts are split; edit changes a message", async (t) => {
    const api = await fakeBotApi(
      t,
      (call) =>
        call.body.parse_mode
          ? [400, { ok: false, description: "Bad Request: can't parse entities: unclosed tag" }]
          : [200, { ok: true, result: { message_id: 9 } }],
    );
    const long = `${"word ".repeat(1000)}\n\n${"tail ".repeat(300)}`.trim();
    const sent = await runScript(SCRIPTS.telegram, [
      "send",
      "--token",
      "123:abc",
      "--chat-id",
      "1",
      "--api-root",
      api.root,
      long,
    ]);
    assert.equal(sent.code, 0, sent.stderr);
    const plain = api.calls.filter((c) => !c.body.parse_mode);
    assert.ok(plain.length >= 2, "expected the text in several messages");
    assert.ok(plain.every((c) => String(c.body.text).length <= 4096));
    assert.equal(
      plain.map((c) => c.body.text).join(" ").replace(/\s+/g, " "),
      long.replace(/\s+/g, " "),
    );
    api.calls.length = 0;
    const edited = await runScript(SCRIPTS.telegram, [
      "edit",
      "--token",
      "123:abc",
      "--chat-id",
      "1",
      "--message-id",
      "9",
      "--format",
      "plain",
      "--api-root",
      api.root,
      "new",
      "text",
    ]);
    assert.equal(edited.code, 0, edited.stderr);
    assert.deepEqual(api.calls, [{
      method: "editMessageText",
      body: { chat_id: "1", message_id: 9, text: "new text" },
    }]);
  });

  test("a missing token or a failing API exits 1 with the reason", async (t) => {
    const api = await fakeBotApi(
      t,
      () => [403, { ok: false, description: "Forbidden: bot was blocked by the user" }],
    );
    const noToken = await runScript(SCRIPTS.telegram, ["send", "--chat-id", "1", "hi"]);
    assert.equal(noToken.code, 1);
    assert.match(noToken.stderr, /No bot token/);
    const blocked = await runScript(SCRIPTS.telegram, [
      "send",
      "--token",
      "123:abc",
      "--chat-id",
      "1",
      "--api-root",
      api.root,
      "hi",
    ]);
    assert.equal(blocked.code, 1);
    assert.match(
      blocked.stderr,
      /Telegram sendMessage failed \(HTTP 403\): Forbidden: bot was blocked by the user/,
    );
  });
});

describe("telegram markdown conversion", () => {
  test("markdown becomes Telegram HTML with text escaped and snake_case left alone", async () => {
    const { markdownToTelegramHtml, splitMessage } = await import(
      "../../src/skills/builtin/telegram/scripts/_format.ts"
    );
    assert.equal(
      markdownToTelegramHtml(
        "# Title\n- *it* and _em_ in my_var_name\n> quoted & <x>\n[site](https://e.x/?a=1&b=2) ~~old~~",
      ),
      '<b>Title</b>\n• <i>it</i> and <i>em</i> in my_var_name\n<blockquote>quoted &amp; &lt;x&gt;</blockquote>\n<a href="https://e.x/?a=1&amp;b=2">site</a> <s>old</s>',
    );
    assert.equal(
      markdownToTelegramHtml("Run:\n```ts\nif (a < b) **x**\n```\ndone"),
      'Run:\n<pre><code class="language-ts">if (a &lt; b) **x**</code></pre>\ndone',
    );
    assert.deepEqual(splitMessage("short"), ["short"]);
    assert.deepEqual(splitMessage("aaaa bbbb cccc", 9), ["aaaa bbbb", "cccc"]);
  });
});
