/**
 * Approvals through the builtin framework and a real mock model server: an `approvals:` rule
 * suspends the turn with `,approve <id>` in its answer; `,approve` runs the tool (a real file
 * write) once and the loop goes on; `,deny` gives the model the denial; a stranger is refused;
 * an expired id tells the model so; `always` stops later asks; `,approvals` lists; a decision
 * typed in another session sends the resumed answer to the session that asked.
 */
import { afterEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type { Envelope } from "../../src/kernel/envelope.ts";
import { createEntry } from "../../src/tape/entry.ts";
import type { TapeStore } from "../../src/tape/store.ts";
import { Tape } from "../../src/tape/tape.ts";
import { mockReply } from "../../src/testing/mock_llm_server.ts";
import { defineTool } from "../../src/tools/tool.ts";
import {
  eventData,
  type TurnFixture,
  turnFixture,
  type TurnFixtureOptions,
} from "./_turn_fixture.ts";

/** A tool with a real effect: appends a line to `<home>/<name>.txt`. */
function touchTool(home: () => string) {
  return defineTool({
    name: "tests.touch",
    description: "Append a line to a file",
    parameters: z.object({ name: z.string() }),
    handler: async ({ name }) => {
      const { appendFileSync } = await import("node:fs");
      appendFileSync(join(home(), `${name}.txt`), "touched\n");
      return `touched ${name}`;
    },
  });
}

const RULES = JSON.stringify([{ tool: "tests.*", match: "secret", reason: "touches secrets" }]);

async function fixture(
  script: TurnFixtureOptions["script"],
  env: Record<string, string> = {},
  extra: TurnFixtureOptions = {},
): Promise<TurnFixture> {
  let home = "";
  const fx = await turnFixture({
    script,
    env: { BUB_APPROVALS: RULES, ...env },
    tools: [touchTool(() => home)],
    ...extra,
  });
  home = fx.home;
  return fx;
}

function from(sender: string, content: string, chatId = "local"): Envelope {
  return { channel: "cli", chatId, content, context: { sender_id: sender } };
}

function approvalId(text: string): string {
  const id = /,approve ([a-z2-7]{10})\b/.exec(text)?.[1];
  assert.ok(id, `no ,approve <id> in ${JSON.stringify(text)}`);
  return id;
}

/** The tool message the model received in request `index`. */
function toolMessage(fx: TurnFixture, index: number): string {
  const messages = fx.bodies()[index]!.messages as { role: string; content: unknown }[];
  return String(messages.filter((message) => message.role === "tool").at(-1)?.content ?? "");
}

describe("approvals", () => {
  const open: TurnFixture[] = [];
  afterEach(async () => {
    for (const fx of open.splice(0)) await fx[Symbol.asyncDispose]();
  });

  for (const store of ["file", "memory"]) {
    test(`${store} store: a matching rule suspends the turn; ,approve runs the tool once and the loop goes on`, async () => {
      await askApproveOnce(store);
    });
  }

  async function askApproveOnce(store: string): Promise<void> {
    const fx = await fixture([
      mockReply.toolCall("tests_touch", { name: "secret" }, { id: "call_1" }),
      mockReply.text("All done."),
    ], { BUB_TAPE_STORE: store });
    open.push(fx);
    const asked = await fx.turn(from("alice", "touch the secret file"));
    const id = approvalId(asked.modelOutput);
    assert.match(asked.modelOutput, new RegExp(`,deny ${id}`));
    assert.match(asked.modelOutput, /tests\.touch \{"name":"secret"\} \(touches secrets\)/);
    assert.equal(existsSync(join(fx.home, "secret.txt")), false);
    assert.equal(fx.server.requests.length, 1);
    const entries = await fx.entries();
    const [request] = eventData(entries, "approval.requested");
    assert.deepEqual(
      [request!.id, request!.call_id, request!.tool, request!.approvers, request!.chat_id],
      [id, "call_1", "tests.touch", ["alice"], "local"],
    );
    assert.equal(eventData(entries, "loop.step").at(-1)!.status, "suspended");

    const approved = await fx.turn(from("alice", `,approve ${id}`));
    assert.match(approved.modelOutput, new RegExp(`Approved ${id}\\.`));
    assert.match(approved.modelOutput, /All done\./);
    assert.equal(readFileSync(join(fx.home, "secret.txt"), "utf8"), "touched\n");
    assert.equal(fx.server.requests.length, 2);
    assert.equal(toolMessage(fx, 1), "touched secret");
    const after = await fx.entries();
    assert.deepEqual(eventData(after, "approval.decided").at(-1), {
      id,
      decision: "approve",
      by: "alice",
    });
    assert.deepEqual(eventData(after, "loop.step").slice(-2).map((step) => step.status), [
      "continue",
      "ok",
    ]);

    const again = await fx.turn(from("alice", `,approve ${id}`));
    assert.match(again.modelOutput, /already decided: approved by alice/);
    assert.equal(readFileSync(join(fx.home, "secret.txt"), "utf8"), "touched\n");
  }

  test(",deny gives the model the denial as the tool's result and the loop goes on", async () => {
    const fx = await fixture([
      mockReply.toolCall("tests_touch", { name: "secret" }),
      mockReply.text("Understood, not touching it."),
    ]);
    open.push(fx);
    const id = approvalId((await fx.turn(from("alice", "touch it"))).modelOutput);
    const denied = await fx.turn(from("alice", `,deny ${id} too risky today`));
    assert.match(denied.modelOutput, /Denied .*Understood, not touching it\./s);
    assert.equal(toolMessage(fx, 1), "denied by alice: too risky today");
    assert.equal(existsSync(join(fx.home, "secret.txt")), false);
  });

  test("a stranger's ,approve is refused; an unknown id gets a clear answer", async () => {
    const fx = await fixture([mockReply.toolCall("tests_touch", { name: "secret" })]);
    open.push(fx);
    const id = approvalId((await fx.turn(from("alice", "touch it"))).modelOutput);
    const refused = await fx.turn(from("mallory", `,approve ${id}`));
    assert.match(refused.modelOutput, /You may not decide approval/);
    const unknown = await fx.turn(from("alice", ",approve zzzzzzzzzz"));
    assert.match(unknown.modelOutput, /Unknown approval id "zzzzzzzzzz"/);
    assert.equal(existsSync(join(fx.home, "secret.txt")), false);
    assert.equal(eventData(await fx.entries(), "approval.decided").length, 0);
    const listed = await fx.turn(from("alice", ",approvals"));
    assert.match(listed.modelOutput, new RegExp(`${id}  tests\\.touch  touches secrets  asked`));
  });

  test("an expired request gives the model 'approval expired' when it is decided", async () => {
    const fx = await fixture([
      mockReply.toolCall("tests_touch", { name: "secret" }),
      mockReply.text("It expired."),
    ], { BUB_APPROVAL_TIMEOUT_SECONDS: "0.05" });
    open.push(fx);
    const id = approvalId((await fx.turn(from("alice", "touch it"))).modelOutput);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const late = await fx.turn(from("alice", `,approve ${id}`));
    assert.match(late.modelOutput, /expired at .*It expired\./s);
    assert.equal(toolMessage(fx, 1), "approval expired");
    assert.equal(existsSync(join(fx.home, "secret.txt")), false);
  });

  test("',approve <id> always' stops later asks for the same tool and pattern in the session", async () => {
    const fx = await fixture([
      mockReply.toolCall("tests_touch", { name: "secret" }),
      mockReply.text("first"),
      mockReply.toolCall("tests_touch", { name: "secret" }),
      mockReply.text("second"),
    ]);
    open.push(fx);
    const id = approvalId((await fx.turn(from("alice", "touch it"))).modelOutput);
    await fx.turn(from("alice", `,approve ${id} always`));
    const next = await fx.turn(from("alice", "touch it again"));
    assert.equal(next.modelOutput, "second");
    assert.equal(readFileSync(join(fx.home, "secret.txt"), "utf8"), "touched\ntouched\n");
    assert.deepEqual(eventData(await fx.entries(), "approval.grant"), [
      { tool: "tests.touch", match: "secret" },
    ]);
  });

  test("a decision typed in another session resumes the asking session and answers there", async () => {
    const outbounds: Envelope[] = [];
    const fx = await fixture(
      [
        mockReply.toolCall("tests_touch", { name: "secret" }),
        mockReply.text("Done in the first chat."),
      ],
      {},
      {
        plugins: [{
          name: "capture",
          dispatchOutbound: ({ message }: { message: Envelope }) => {
            outbounds.push(message);
            return true;
          },
        }],
      },
    );
    open.push(fx);
    const id = approvalId((await fx.turn(from("alice", "touch it"))).modelOutput);
    const elsewhere = await fx.turn(from("alice", `,approve ${id}`, "other"));
    assert.match(elsewhere.modelOutput, /The answer went to cli:local\./);
    const resumed = outbounds.find((message) =>
      String((message as { content?: unknown }).content).includes("Done in the first chat.")
    ) as { chatId?: string; sessionId?: string } | undefined;
    assert.equal(resumed?.chatId, "local");
    assert.equal(resumed?.sessionId, "cli:local");
    assert.equal(readFileSync(join(fx.home, "secret.txt"), "utf8"), "touched\n");
  });

  test("a resume claimed by a process that died before it journaled anything is claimed again once the claim is stale", async () => {
    const fx = await fixture([
      mockReply.toolCall("tests_touch", { name: "secret" }),
      mockReply.text("Done after all."),
    ]);
    open.push(fx);
    const id = approvalId((await fx.turn(from("alice", "touch it"))).modelOutput);
    const tape = new Tape({ store: fx.bub.getTapeStore<TapeStore>()! })
      .sessionTape("cli:local", fx.home);
    await tape.appendEvent("approval.decided", { id, decision: "approve", by: "alice" });
    const claim = (minutesAgo: number) =>
      tape.store.append(
        tape.name,
        createEntry(
          "event",
          { name: "approval.resumed", data: { step: 1, call_ids: [] } },
          {},
          new Date(Date.now() - minutesAgo * 60_000).toISOString(),
        ),
      );
    await claim(0); // a live claimer: its claim holds
    assert.doesNotMatch((await fx.turn(from("alice", "go on?"))).modelOutput, /Done after all/);
    await claim(2); // a dead one's: two minutes old and no fork journaled
    const resumed = await fx.turn(from("alice", "go on?"));
    assert.match(resumed.modelOutput, /Done after all\./);
    assert.equal(readFileSync(join(fx.home, "secret.txt"), "utf8"), "touched\n");
    assert.equal(fx.server.requests.length, 2);
  });

  test("a message sent while the turn waits is answered with the pending approvals, without a model call", async () => {
    const fx = await fixture([
      mockReply.toolCall("tests_touch", { name: "secret" }),
      mockReply.text("Done after all."),
    ]);
    open.push(fx);
    const id = approvalId((await fx.turn(from("alice", "touch it"))).modelOutput);
    const meanwhile = await fx.turn(from("alice", "what's taking so long?"));
    assert.match(meanwhile.modelOutput, /waits for approval; decide first/);
    assert.match(meanwhile.modelOutput, new RegExp(id));
    assert.equal(fx.server.requests.length, 1);
    const approved = await fx.turn(from("alice", `,approve ${id}`));
    assert.match(approved.modelOutput, /Done after all\./);
  });

  test("listing an expired request records it expired and the turn goes on with the model told so", async () => {
    const fx = await fixture([
      mockReply.toolCall("tests_touch", { name: "secret" }),
      mockReply.text("Noted, it expired."),
    ], { BUB_APPROVAL_TIMEOUT_SECONDS: "0.05" });
    open.push(fx);
    await fx.turn(from("alice", "touch it"));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const listed = await fx.turn(from("alice", ",approvals"));
    assert.match(listed.modelOutput, /1 approval\(s\) expired.*Noted, it expired\./s);
    assert.equal(toolMessage(fx, 1), "approval expired");
    assert.deepEqual(eventData(await fx.entries(), "approval.decided").map((d) => d.decision), [
      "expired",
    ]);
  });

  test("a bad rule is a config error naming it", async () => {
    const fx = await fixture([mockReply.toolCall("tests_touch", { name: "x" })], {
      BUB_APPROVALS: JSON.stringify([{ tool: "bash" }, { tool: "fs.*", match: "(" }]),
    });
    open.push(fx);
    await assert.rejects(
      fx.turn(from("alice", "hi")),
      /approvals rule 2 .*not a regular expression/,
    );
  });
});
