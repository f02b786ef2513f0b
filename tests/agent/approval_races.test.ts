/**
 * One decision per approval id: two builtin frameworks (each with its own store object, as two
 * processes have) on one file store, SQLite database or PostgreSQL database decide the same id
 * at the same instant, round after round; every time exactly one decision is recorded, the tool
 * runs once, the model is asked once more, and the other decider is told it was already decided.
 * And one resume per decided step: when both frameworks see every held call of the step decided
 * at once (a message of the asking session in each), the resume is claimed by a compare-and-swap
 * append of `approval.resumed`, so the tool runs once and the model is asked once more.
 * Below them, the stores' compare-and-swap append (`appendIfLast`) itself.
 */
import { afterEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { BubFramework } from "../../src/builtin/framework.ts";
import type { BuiltinPlugin } from "../../src/builtin/plugin.ts";
import { createEntry } from "../../src/tape/entry.ts";
import { FileTapeStore } from "../../src/tape/file_store.ts";
import { InMemoryTapeStore } from "../../src/tape/memory_store.ts";
import { PostgresTapeStore } from "../../src/tape/postgres_store.ts";
import { SqliteTapeStore } from "../../src/tape/sqlite_store.ts";
import type { TapeStore } from "../../src/tape/store.ts";
import { Tape } from "../../src/tape/tape.ts";
import {
  MockLlmServer,
  type MockReply,
  mockReply,
  type MockRequest,
  type MockResponder,
} from "../../src/testing/mock_llm_server.ts";
import { defineTool } from "../../src/tools/tool.ts";
import { freshDatabase } from "../e2e/_cluster_harness.ts";
import { postgresUrl } from "../tape/_postgres.ts";
import { eventData } from "./_turn_fixture.ts";

const ROUNDS = 8;

interface StoreCase {
  name: string;
  /** The `BUB_TAPE_STORE` value in `home`, and what removes it afterwards. */
  setting(home: string): Promise<{ value: string; drop?: () => Promise<void> }>;
}

const STORES: StoreCase[] = [
  { name: "file", setting: () => Promise.resolve({ value: "file" }) },
  { name: "SQLite", setting: (home) => Promise.resolve({ value: `sqlite:${join(home, "t.db")}` }) },
];

/** A tool with a real effect: appends a line to `<home>/<name>.txt`. */
function touchTool(home: string) {
  return defineTool({
    name: "tests.touch",
    description: "Append a line to a file",
    parameters: z.object({ name: z.string() }),
    handler: async ({ name }) => {
      const { appendFileSync } = await import("node:fs");
      appendFileSync(join(home, `${name}.txt`), "touched\n");
      return `touched ${name}`;
    },
  });
}

async function framework(home: string, env: Record<string, string>): Promise<{
  bub: BubFramework;
  scope: AsyncDisposable;
}> {
  const bub = new BubFramework({
    home,
    configFile: join(home, "config.yml"),
    loadDotenv: false,
    workspace: home,
    builtin: { env },
  });
  bub.loadBuiltinHooks();
  (bub.pluginManager.get("builtin") as BuiltinPlugin).runtime.registry.register(touchTool(home));
  return { bub, scope: await bub.running() };
}

function from(sender: string, content: string, chatId: string) {
  return { channel: "cli", chatId, content, context: { sender_id: sender } };
}

/** Two frameworks (own store objects, as two processes have) on one store, and a mock model. */
async function twoFrameworks(
  store: StoreCase,
  script: MockReply[] | MockResponder,
  cleanups: (() => PromiseLike<void>)[],
) {
  const home = realpathSync(mkdtempSync(join(tmpdir(), "bub-approval-race-")));
  const server = await MockLlmServer.start({ script });
  const tapes = await store.setting(home);
  cleanups.push(async () => {
    await server.close();
    await tapes.drop?.();
    rmSync(home, { recursive: true, force: true });
  });
  const env = {
    BUB_MODEL: "openai:gpt-test",
    BUB_API_KEY: "sk-test",
    BUB_API_BASE: server.url,
    BUB_TAPE_STORE: tapes.value,
    BUB_APPROVALS: JSON.stringify([{ tool: "tests.*", match: "secret" }]),
  };
  const a = await framework(home, env);
  cleanups.push(() => a.scope[Symbol.asyncDispose]());
  const b = await framework(home, env);
  cleanups.push(() => b.scope[Symbol.asyncDispose]());
  const entries = () =>
    new Tape({ store: a.bub.getTapeStore<TapeStore>()! }).sessionTape("cli:local", home).query()
      .all();
  return { home, server, a: a.bub, b: b.bub, entries };
}

/** The script of `rounds` turns: a held `tests_touch` call, then an answer. */
function touchScript(rounds: number) {
  return Array.from({ length: rounds }, (_, round) => [
    mockReply.toolCall("tests_touch", { name: `secret${round}` }, { id: `call_${round}` }),
    mockReply.text(`Done ${round}.`),
  ]).flat();
}

type Message = { role: string; content?: unknown; tool_call_id?: string };

function messagesOf(request: MockRequest): Message[] {
  return (request.body as { messages: Message[] }).messages;
}

/**
 * The model of the resume race, by what it is sent: `touch secret N` → a held call `call_N`;
 * the result of `call_N` → `Done N.`; anything else (a message that came after the resume) → a
 * plain answer.
 */
function touchResponder(request: MockRequest): MockReply {
  const last = messagesOf(request).at(-1)!;
  const done = /^call_(\d+)$/.exec(last.tool_call_id ?? "");
  if (last.role === "tool" && done) return mockReply.text(`Done ${done[1]}.`);
  const asked = /touch secret (\d+)/.exec(String(last.content));
  if (last.role === "user" && asked) {
    return mockReply.toolCall("tests_touch", { name: `secret${asked[1]}` }, {
      id: `call_${asked[1]}`,
    });
  }
  return mockReply.text("A new turn.");
}

function storeCases(pg: string | null): StoreCase[] {
  return pg === null ? STORES : [...STORES, {
    name: "PostgreSQL",
    async setting() {
      const db = await freshDatabase(pg);
      return { value: db.url, drop: () => db.drop() };
    },
  }];
}

describe("one decision per approval id", () => {
  const cleanups: (() => PromiseLike<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  const pg = postgresUrl("approval decision races on PostgreSQL");

  for (const store of storeCases(pg)) {
    test(`${store.name} store: two frameworks approve the same id at once, ${ROUNDS} times: one decision, one tool run, one resume each time`, async () => {
      const { home, server, a, b, entries } = await twoFrameworks(
        store,
        touchScript(ROUNDS),
        cleanups,
      );
      for (let round = 0; round < ROUNDS; round++) {
        const asked = await a.processInbound(
          from("alice", `touch secret ${round}`, "local"),
          { stream: true },
        );
        const id = /,approve ([a-z2-7]{10})\b/.exec(asked.modelOutput)?.[1];
        assert.ok(id, asked.modelOutput);
        // The same session decides in one framework, another session in the other.
        const [first, second] = await Promise.all([
          a.processInbound(from("alice", `,approve ${id}`, "local"), { stream: true }),
          b.processInbound(from("alice", `,approve ${id}`, "elsewhere"), { stream: true }),
        ]);
        const outputs = [first.modelOutput, second.modelOutput];
        const won = outputs.filter((text) => text.includes(`Approved ${id}.`));
        const lost = outputs.filter((text) => text.includes(`Approval ${id} was already decided`));
        assert.deepEqual([won.length, lost.length], [1, 1], JSON.stringify(outputs));
        const effect = join(home, `secret${round}.txt`);
        assert.ok(existsSync(effect), `round ${round}: the tool did not run`);
        assert.equal(readFileSync(effect, "utf8"), "touched\n", `round ${round}`);
        assert.equal(server.requests.length, 2 * (round + 1), `round ${round}: model calls`);
        const all = await entries();
        const decided = eventData(all, "approval.decided").filter((data) => data.id === id);
        assert.equal(decided.length, 1, `round ${round}: decisions of ${id}`);
        assert.equal(eventData(all, "loop.step").at(-1)!.status, "ok");
      }
    });
  }
});

describe("one resume per decided step", () => {
  const cleanups: (() => PromiseLike<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  const pg = postgresUrl("approval resume races on PostgreSQL");

  for (const store of storeCases(pg)) {
    test(`${store.name} store: the step was decided elsewhere and both frameworks get a message of the asking session at once, ${ROUNDS} times: one resume, one tool run`, async () => {
      const { home, server, a, b, entries } = await twoFrameworks(
        store,
        touchResponder,
        cleanups,
      );
      const tape = new Tape({ store: a.getTapeStore<TapeStore>()! }).sessionTape("cli:local", home);
      for (let round = 0; round < ROUNDS; round++) {
        const asked = await a.processInbound(
          from("alice", `touch secret ${round}`, "local"),
          { stream: true },
        );
        const id = /,approve ([a-z2-7]{10})\b/.exec(asked.modelOutput)?.[1];
        assert.ok(id, asked.modelOutput);
        // Decided by a process whose resume did not run (it died, or its inbox message waits).
        await tape.appendEvent("approval.decided", { id, decision: "approve", by: "alice" });
        const outputs = (await Promise.all([
          a.processInbound(from("alice", "go on?", "local"), { stream: true }),
          b.processInbound(from("alice", "go on?", "local"), { stream: true }),
        ])).map((result) => result.modelOutput);
        const resumed = outputs.filter((text) => text.includes(`Done ${round}.`));
        assert.equal(resumed.length, 1, `round ${round}: ${JSON.stringify(outputs)}`);
        assert.equal(
          readFileSync(join(home, `secret${round}.txt`), "utf8"),
          "touched\n",
          `round ${round}: tool runs`,
        );
        // The model got the call's result once (a message that came after the resume may have
        // started a turn of its own).
        const results = server.requests.filter((request) =>
          messagesOf(request).at(-1)?.tool_call_id === `call_${round}`
        );
        assert.equal(results.length, 1, `round ${round}: model calls with the result`);
        const all = await entries();
        const claims = eventData(all, "approval.resumed").filter((data) =>
          (data.call_ids as string[]).includes(`call_${round}`)
        );
        assert.equal(claims.length, 1, `round ${round}: claims`);
        assert.equal(eventData(all, "loop.step").at(-1)!.status, "ok");
      }
    });
  }
});

describe("appendIfLast: a store's compare-and-swap append", () => {
  const cleanups: (() => PromiseLike<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  const pg = postgresUrl("appendIfLast on PostgreSQL");

  type Pair = [TapeStore & AsyncDisposable, TapeStore & AsyncDisposable];
  const pairs: { name: string; open(dir: string): Promise<Pair> }[] = [
    {
      name: "memory",
      open: () => {
        const store = new InMemoryTapeStore();
        return Promise.resolve([store, store]);
      },
    },
    {
      name: "file",
      open: (dir) => Promise.resolve([new FileTapeStore(dir), new FileTapeStore(dir)]),
    },
    {
      name: "SQLite",
      open: (dir) =>
        Promise.resolve([
          new SqliteTapeStore(join(dir, "t.db")),
          new SqliteTapeStore(join(dir, "t.db")),
        ]),
    },
  ];
  if (pg !== null) {
    pairs.push({
      name: "PostgreSQL",
      async open() {
        const db = await freshDatabase(pg);
        const one = new PostgresTapeStore(db.url);
        const two = new PostgresTapeStore(db.url);
        cleanups.push(() => db.drop());
        return [one, two];
      },
    });
  }

  for (const pair of pairs) {
    test(`${pair.name}: appends only from the expected newest id; of racing appends from one id, one lands`, async () => {
      const dir = realpathSync(mkdtempSync(join(tmpdir(), "bub-cas-")));
      cleanups.push(() => Promise.resolve(rmSync(dir, { recursive: true, force: true })));
      const [one, two] = await pair.open(dir);
      cleanups.push(async () => {
        await one[Symbol.asyncDispose]();
        if (two !== one) await two[Symbol.asyncDispose]();
      });
      const tape = "ws__race";
      const entry = (n: number) => createEntry("event", { name: "n", data: { n } });
      assert.equal(await one.appendIfLast!(tape, [entry(1)], 1), false, "missing tape, id 1");
      assert.equal(await one.appendIfLast!(tape, [entry(1), entry(2)], 0), true);
      assert.equal(await two.appendIfLast!(tape, [entry(3)], 0), false, "stale id 0");
      assert.equal(await two.appendIfLast!(tape, [entry(3)], 2), true);
      for (let round = 0; round < 10; round++) {
        const last = 3 + round;
        const results = await Promise.all([
          one.appendIfLast!(tape, [entry(100 + round)], last),
          two.appendIfLast!(tape, [entry(200 + round)], last),
        ]);
        assert.equal(results.filter(Boolean).length, 1, `round ${round}: ${results}`);
      }
      const all = await new Tape({ store: one }).scoped(tape).query().all();
      assert.deepEqual(all.map((item) => item.id), Array.from({ length: 13 }, (_, i) => i + 1));
    });
  }
});
