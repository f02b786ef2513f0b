/**
 * A spilled tool result as the console shows it: read from the spill sidecar of the tape the
 * request names (`<tape>__sidecar__spill`) and nowhere else. The handle must be the hex id
 * `spillText` makes and the tape one of the store's tapes, so a request cannot reach another
 * tape or path.
 *
 * @module
 */
import { isRecord } from "../../_internal/object.ts";
import { BubError } from "../../kernel/errors.ts";
import { sidecarTapeName } from "../../kernel/tape_context.ts";
import { TapeQuery } from "../../tape/query.ts";
import { SPILL_SIDECAR } from "../../tape/spill.ts";
import type { TapeStore } from "../../tape/store.ts";
import { requireTape } from "./tape_view.ts";

/** A spilled tool result. */
export interface SpillView {
  /** The handle. */
  handle: string;
  /** The tool that produced it, when recorded. */
  tool: string | null;
  /** Its size in UTF-8 bytes. */
  bytes: number;
  /** Its chunk count. */
  chunks: number;
  /** The text (the first `maxChunks` chunks). */
  text: string;
  /** False when the text stops before the end (more than `maxChunks` chunks). */
  complete: boolean;
}

/** A spill handle: 32 lowercase hex digits. */
export const SPILL_HANDLE: RegExp = /^[0-9a-f]{32}$/;

async function soft<T>(read: () => Promise<T[]>): Promise<T[]> {
  try {
    return await read();
  } catch (error) {
    if (BubError.isInstance(error) && (error as BubError).kind === "not_found") return [];
    throw error;
  }
}

/** Reads spilled result `handle` of tape `tape` (at most `maxChunks` chunks of 16 KiB). */
export async function readSpillView(
  store: TapeStore,
  tape: string,
  handle: string,
  maxChunks = 64,
): Promise<SpillView> {
  if (!SPILL_HANDLE.test(handle)) {
    throw new BubError("invalid_input", "A spill handle is 32 lowercase hex digits");
  }
  await requireTape(store, tape);
  const sidecar = sidecarTapeName(tape, SPILL_SIDECAR);
  const missing = () =>
    new BubError("not_found", `Tape ${JSON.stringify(tape)} has no spilled result ${handle}`);
  const [manifest] = await soft(() =>
    new TapeQuery(sidecar, store).afterAnchor(`spill/${handle}/manifest`).kinds("event").limit(1)
      .all()
  );
  const data = manifest?.payload.data;
  if (manifest?.payload.name !== "spill.manifest" || !isRecord(data) || data.handle !== handle) {
    throw missing();
  }
  const chunks = Number(data.chunks);
  const wanted = Math.min(chunks, maxChunks);
  const entries = await soft(() =>
    new TapeQuery(sidecar, store).afterAnchor(`spill/${handle}/chunk/0`).kinds("tool_result")
      .limit(wanted).all()
  );
  let text = "";
  for (let i = 0; i < wanted; i++) {
    const entry = entries[i];
    const results = entry?.payload.results;
    if (
      entry?.meta.spill_handle !== handle || entry.meta.spill_chunk !== i ||
      !Array.isArray(results) || typeof results[0] !== "string"
    ) throw new BubError("not_found", `Spilled result ${handle} is missing chunk ${i}`);
    text += results[0];
  }
  return {
    handle,
    tool: typeof data.tool === "string" ? data.tool : null,
    bytes: Number(data.bytes),
    chunks,
    text,
    complete: wanted === chunks,
  };
}
