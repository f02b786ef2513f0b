/**
 * The raw client of `turn.bench.ts` with the durability Bub's file tape gives a turn, done the
 * plain way: after the turn's two calls (Bub's request bytes), the turn's tape bytes (as many as
 * Bub writes for a fresh session) are written and flushed with `fdatasync` before the turn ends.
 * Two kinds: `"new file"` makes a file per turn (create, write, flush, close: a fresh session's
 * tape is a new file), `"append"` appends to one file kept open (the cheapest durable write: no
 * create at all). Their p50 over the raw row is what durability alone costs on the machine, the
 * floor under Bub's file-tape row.
 *
 * @module
 */
import { closeSync, mkdtempSync, openSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { datasyncFd, writeFdAll } from "../../src/tape/file/_fd.ts";
import { rawBytesTurn, type Turn } from "./_turn_raw.ts";

/** A turn that also writes durably, and the folder it writes in (`close` removes it). */
export interface DurableTurn {
  turn: Turn;
  close(): void;
}

/**
 * The raw client sending `bodies`, then writing `tapeBytes` durably as `kind` says (see the
 * module doc). The write is synchronous and the flush on the thread pool, as the file tape does.
 */
export function durableRawTurn(
  url: string,
  bodies: readonly string[],
  tapeBytes: number,
  kind: "new file" | "append",
): DurableTurn {
  const raw = rawBytesTurn(url, bodies);
  const folder = mkdtempSync(join(tmpdir(), "bub-turn-durable-"));
  const line = new TextEncoder().encode(`${"x".repeat(Math.max(0, tapeBytes - 1))}\n`);
  const log = kind === "append" ? openSync(join(folder, "all.jsonl"), "a") : -1;
  return {
    turn: async (i) => {
      await raw(i);
      if (log >= 0) {
        writeFdAll(log, line);
        await datasyncFd(log);
        return;
      }
      const fd = openSync(join(folder, `t${i}-${crypto.randomUUID()}.jsonl`), "wx", 0o600);
      try {
        writeFdAll(fd, line);
        await datasyncFd(fd);
      } finally {
        closeSync(fd);
      }
    },
    close: () => {
      if (log >= 0) closeSync(log);
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
