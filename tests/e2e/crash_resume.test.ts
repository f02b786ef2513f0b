/**
 * Crash-safe resume through real processes: a `bub run` whose model calls a tool is SIGKILLed
 * while the tool runs; the next `bub run` in that session first delivers the interrupted turn's
 * answer (the model was told "interrupted: unknown whether it took effect", or, for a tool
 * declared idempotent, the tool ran again with the same call id), then answers the new message.
 * With the file store, SQLite and (with `scripts/postgres.sh`) PostgreSQL.
 */
import { afterEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { MockLlmServer, mockReply } from "../../src/testing/mock_llm_server.ts";
import { createTapeStoreFromSetting } from "../../src/builtin/tape_store_setting.ts";
import { TapeQuery } from "../../src/tape/query.ts";
import type { TapeEntry } from "../../src/tape/entry.ts";
import {
  BIN,
  childEnv,
  cleanupStack,
  runCli,
  runtimeCommand,
  startChild,
  tempDirs,
} from "../cli/_spawn.ts";
import { postgresUrl } from "../tape/_postgres.ts";
import { freshDatabase } from "./_cluster_harness.ts";

interface StoreCase {
  name: string;
  setting(dir: string): Promise<{ value: string; drop?: () => Promise<void> }>;
}

const STORES: StoreCase[] = [
  { name: "file", setting: () => Promise.resolve({ value: "file" }) },
  { name: "SQLite", setting: (dir) => Promise.resolve({ value: `sqlite:${join(dir, "t.db")}` }) },
];

const PLUGIN = resolve(import.meta.dirname ?? ".", "_resume_tools_plugin.ts");

/** Resolves once `path` holds a line (the tool runs). */
async function lineWritten(path: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(path) || !readFileSync(path, "utf8").includes("\n")) {
    if (Date.now() > deadline) throw new Error(`no line in ${path} after ${timeoutMs} ms`);
    await sleep(50);
  }
}

/** Every event of every tape of the store. */
async function events(value: string, home: string): Promise<TapeEntry[]> {
  await using store = createTapeStoreFromSetting(value, home);
  const out: TapeEntry[] = [];
  for (const tape of await store.listTapes()) {
    out.push(...await store.fetchAll(new TapeQuery(tape, store)));
  }
  return out.filter((entry) => entry.kind === "event");
}

function toolMessages(body: unknown): string[] {
  const messages = (body as { messages: { role: string; content: unknown }[] }).messages;
  return messages.filter((m) => m.role === "tool").map((m) => JSON.stringify(m.content));
}

describe("crash-safe resume across processes", () => {
  const cleanup = cleanupStack();
  afterEach(() => cleanup.run());
  const pg = postgresUrl("crash-safe resume on PostgreSQL");
  const stores = pg === null ? STORES : [...STORES, {
    name: "PostgreSQL",
    async setting() {
      const db = await freshDatabase(pg);
      return { value: db.url, drop: () => db.drop() };
    },
  }];

  for (const store of stores) {
    for (const idempotent of [false, true]) {
      const what = idempotent
        ? "an idempotent tool runs again with the same call id"
        : "the model is told the bash call was interrupted and it does not run again";
      test(`${store.name} store: SIGKILL during a tool, the next bub run resumes the turn (${what}), then answers the new message`, async () => {
        const dirs = tempDirs("bub-resume-");
        const calls = join(dirs.workspace, "calls.txt");
        const toolCall = idempotent
          ? mockReply.toolCall("append_id", { path: calls }, { id: "call_1" })
          : mockReply.toolCall("bash", {
            command: `echo $BUB_TOOL_CALL_ID >> ${calls}; sleep 30`,
          }, { id: "call_1" });
        const server = await MockLlmServer.start({
          script: [
            toolCall,
            mockReply.text("Recovered answer."),
            mockReply.text("New answer."),
            mockReply.text("Fine."),
          ],
        });
        const tapes = await store.setting(dirs.bubHome);
        cleanup.defer(async () => {
          await server.close();
          await tapes.drop?.();
          dirs.remove();
        });
        if (idempotent) dirs.writeConfig(`plugins:\n  - ${JSON.stringify(PLUGIN)}\n`);
        const env = {
          BUB_MODEL: "custom:x",
          BUB_API_BASE: server.url,
          BUB_TAPE_STORE: tapes.value,
        };
        const first = startChild(
          runtimeCommand(BIN, ["run", "--stream", "--sender-id", "alice", "write the file"]),
          { cwd: dirs.workspace, env: childEnv(dirs, env) },
        );
        cleanup.defer(() => first[Symbol.asyncDispose]());
        await lineWritten(calls);
        first.kill();
        await first.exited(10_000);
        assert.equal(readFileSync(calls, "utf8"), "call_1\n");
        assert.equal(server.requests.length, 1);

        const next = await runCli(dirs, ["run", "--sender-id", "alice", "what next?"], {
          env,
          timeoutMs: 60_000,
        });
        assert.equal(next.code, 0, next.stderr);
        assert.match(next.stdout, /Recovered answer\.[\s\S]*New answer\./);
        assert.equal(next.stdout.match(/Recovered answer\./g)?.length, 1);
        // The interrupted turn's model call gets the call's result; the new turn comes after.
        assert.equal(server.requests.length, 3);
        const resumed = toolMessages(server.requests[1]!.body);
        assert.equal(resumed.length, 1);
        if (idempotent) {
          assert.match(resumed[0]!, /appended call_1/);
          assert.equal(readFileSync(calls, "utf8"), "call_1\ncall_1\n");
        } else {
          assert.match(resumed[0]!, /interrupted: unknown whether it took effect/);
          assert.equal(readFileSync(calls, "utf8"), "call_1\n");
        }
        const last = JSON.stringify(server.requests[2]!.body);
        assert.match(last, /what next\?/);
        assert.match(last, /Recovered answer\./);

        const names = (await events(tapes.value, dirs.bubHome)).map((e) => e.payload.name);
        assert.equal(names.filter((name) => name === "turn.interrupted").length, 1);
        assert.equal(names.filter((name) => name === "turn.resumed").length, 1);
        assert.ok(names.indexOf("turn.interrupted") < names.indexOf("turn.resumed"));

        // A third process finds nothing left to resume.
        const again = await runCli(dirs, ["run", "--sender-id", "alice", "and now?"], {
          env,
          timeoutMs: 60_000,
        });
        assert.equal(again.code, 0, again.stderr);
        assert.doesNotMatch(again.stdout, /Recovered answer\./);
        assert.match(again.stdout, /Fine\./);
        assert.equal(server.requests.length, 4);
      });
    }
  }
});
