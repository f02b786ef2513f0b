/**
 * Approvals that survive the asking process: a real `bub run` whose model calls `bash` under an
 * `approvals:` rule prints `,approve <id>` and is SIGKILLed; a stranger's `,approve` from a new
 * process is refused; the owner's `,approve` from another new process runs the command (its file
 * gets exactly one line) and the answer arrives; a second `,approve` is "already decided". With
 * the file store, SQLite and (with `scripts/postgres.sh`) PostgreSQL.
 */
import { afterEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { MockLlmServer, mockReply } from "../../src/testing/mock_llm_server.ts";
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
  /** The `BUB_TAPE_STORE` value, and what removes the store afterwards. */
  setting(dir: string): Promise<{ value: string; drop?: () => Promise<void> }>;
}

const STORES: StoreCase[] = [
  { name: "file", setting: () => Promise.resolve({ value: "file" }) },
  { name: "SQLite", setting: (dir) => Promise.resolve({ value: `sqlite:${join(dir, "t.db")}` }) },
];

describe("approvals across processes", () => {
  const cleanup = cleanupStack();
  afterEach(() => cleanup.run());
  const pg = postgresUrl("approvals across processes on PostgreSQL");
  const stores = pg === null ? STORES : [...STORES, {
    name: "PostgreSQL",
    async setting() {
      const db = await freshDatabase(pg);
      return { value: db.url, drop: () => db.drop() };
    },
  }];

  for (const store of stores) {
    test(`${store.name} store: ask, SIGKILL the asking process, a stranger is refused, the owner approves from a new process and the command runs once`, async () => {
      const dirs = tempDirs("bub-approvals-");
      const effect = join(dirs.workspace, "effect.txt");
      const server = await MockLlmServer.start({
        script: [
          mockReply.toolCall("bash", { command: `echo ran >> ${effect}` }, { id: "call_1" }),
          mockReply.text("Effect written."),
        ],
      });
      const tapes = await store.setting(dirs.bubHome);
      cleanup.defer(async () => {
        await server.close();
        await tapes.drop?.();
        dirs.remove();
      });
      const env = {
        BUB_MODEL: "custom:x",
        BUB_API_BASE: server.url,
        BUB_TAPE_STORE: tapes.value,
        BUB_APPROVALS: JSON.stringify([
          { tool: "bash", match: "effect\\.txt", reason: "writes the effect file" },
        ]),
      };
      const asking = startChild(
        runtimeCommand(BIN, ["run", "--stream", "--sender-id", "alice", "write the effect"]),
        { cwd: dirs.workspace, env: childEnv(dirs, env) },
      );
      cleanup.defer(() => asking[Symbol.asyncDispose]());
      await asking.waitFor(/,approve [a-z2-7]{10}\b/, { timeoutMs: 60_000 });
      asking.kill();
      await asking.exited(10_000);
      const id = /,approve ([a-z2-7]{10})\b/.exec(asking.stdout)![1]!;
      assert.match(asking.stdout, new RegExp(`,deny ${id}`));
      assert.match(asking.stdout, /bash .*writes the effect file/);
      assert.equal(existsSync(effect), false);
      assert.equal(server.requests.length, 1);

      const stranger = await runCli(dirs, ["run", "--sender-id", "mallory", `,approve ${id}`], {
        env,
      });
      assert.equal(stranger.code, 0, stranger.stderr);
      assert.match(stranger.stdout, /You may not decide approval/);
      assert.equal(existsSync(effect), false);

      const owner = await runCli(dirs, ["run", "--sender-id", "alice", `,approve ${id}`], { env });
      assert.equal(owner.code, 0, owner.stderr);
      assert.match(owner.stdout, new RegExp(`Approved ${id}\\.`));
      assert.match(owner.stdout, /Effect written\./);
      assert.equal(readFileSync(effect, "utf8"), "ran\n");
      assert.equal(server.requests.length, 2);
      const messages = (server.requests[1]!.body as { messages: { role: string }[] }).messages;
      assert.equal(messages.filter((message) => message.role === "tool").length, 1);

      const again = await runCli(dirs, ["run", "--sender-id", "alice", `,approve ${id}`], { env });
      assert.match(again.stdout, /already decided: approved by alice/);
      assert.equal(readFileSync(effect, "utf8"), "ran\n");
      assert.equal(server.requests.length, 2);
    });
  }
});
