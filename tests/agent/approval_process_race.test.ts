/**
 * One decision per approval id across real processes: a `bub run` asks (an `approvals:` rule on
 * `bash`), then two `bub run ,approve <id>` processes start at the same instant on the file
 * store, round after round. Every time the command runs once (its file gets one line), the model
 * is asked once more, one process answers "Approved" and the other "already decided".
 */
import { afterEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { MockLlmServer, mockReply } from "../../src/testing/mock_llm_server.ts";
import { cleanupStack, runCli, tempDirs } from "../cli/_spawn.ts";

const ROUNDS = 3;

describe("approval decisions from two processes at once", () => {
  const cleanup = cleanupStack();
  afterEach(() => cleanup.run());

  test(`file store: two processes approve the same id at once, ${ROUNDS} times: the command runs once each time`, async () => {
    const dirs = tempDirs("bub-approval-procs-");
    const effect = (round: number) => join(dirs.workspace, `effect${round}.txt`);
    const script = Array.from({ length: ROUNDS }, (_, round) => [
      mockReply.toolCall("bash", { command: `echo ran >> ${effect(round)}` }, {
        id: `call_${round}`,
      }),
      mockReply.text(`Effect ${round} written.`),
    ]).flat();
    const server = await MockLlmServer.start({ script });
    cleanup.defer(async () => {
      await server.close();
      dirs.remove();
    });
    const env = {
      BUB_MODEL: "custom:x",
      BUB_API_BASE: server.url,
      BUB_TAPE_STORE: "file",
      BUB_APPROVALS: JSON.stringify([{ tool: "bash", match: "effect\\d\\.txt" }]),
    };
    for (let round = 0; round < ROUNDS; round++) {
      const asked = await runCli(dirs, ["run", "--sender-id", "alice", `write effect ${round}`], {
        env,
      });
      assert.equal(asked.code, 0, asked.stderr);
      const id = /,approve ([a-z2-7]{10})\b/.exec(asked.stdout)?.[1];
      assert.ok(id, asked.stdout);
      const runs = await Promise.all(
        [1, 2].map(() => runCli(dirs, ["run", "--sender-id", "alice", `,approve ${id}`], { env })),
      );
      for (const run of runs) assert.equal(run.code, 0, run.stderr);
      const outputs = runs.map((run) => run.stdout);
      const won = outputs.filter((text) => text.includes(`Approved ${id}.`));
      const lost = outputs.filter((text) => text.includes(`Approval ${id} was already decided`));
      assert.deepEqual([won.length, lost.length], [1, 1], JSON.stringify(outputs));
      assert.match(won[0]!, new RegExp(`Effect ${round} written\\.`));
      assert.ok(existsSync(effect(round)), `round ${round}: the command did not run`);
      assert.equal(readFileSync(effect(round), "utf8"), "ran\n", `round ${round}`);
      assert.equal(server.requests.length, 2 * (round + 1), `round ${round}: model calls`);
    }
  });
});
