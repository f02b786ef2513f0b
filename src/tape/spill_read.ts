/**
 * Paging through a spilled tool result (the `spill.read` tool, §6.7.12).
 *
 * @module
 */
import { isRecord } from "../_internal/object.ts";
import { BubError } from "../kernel/errors.ts";
import { withCommas } from "../_internal/text.ts";
import type { TapeEntry } from "./entry.ts";
import { TapeQuery } from "./query.ts";
import { SPILL_SIDECAR } from "./spill.ts";
import type { Tape } from "./tape.ts";

/**
 * Options of {@link readSpill}.
 *
 * @example
 * ```ts
 * import type { ReadSpillOptions } from "@bub/core/tape";
 * const lastChunk: ReadSpillOptions = { fromEnd: true, count: 1 };
 * ```
 */
export interface ReadSpillOptions {
  /** Chunks to skip (from the start, or from the end with `fromEnd`). Default 0. */
  cursor?: number;
  /** Chunks to read, capped at 4. Default 1. */
  count?: number;
  /** Page from the end. */
  fromEnd?: boolean;
}

/**
 * At most this many chunks per read.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SPILL_READ_MAX_CHUNKS } from "@bub/core/tape";
 * assert.equal(SPILL_READ_MAX_CHUNKS, 4); // one spill.read returns at most this many chunks
 * ```
 */
export const SPILL_READ_MAX_CHUNKS = 4;

interface _Manifest {
  chunks: number;
  bytes: number;
}

function _count(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}

async function _query(query: TapeQuery): Promise<TapeEntry[] | null> {
  try {
    return await query.all();
  } catch (error) {
    if (BubError.isInstance(error) && error.kind === "not_found") return null;
    throw error;
  }
}

async function _manifest(tape: Tape, sidecar: string, handle: string): Promise<_Manifest | null> {
  const found = await _query(
    new TapeQuery(sidecar, tape.store).afterAnchor(`spill/${handle}/manifest`).kinds("event").limit(
      1,
    ),
  );
  const payload = found?.[0]?.payload;
  const data = payload?.data;
  if (payload?.name !== "spill.manifest" || !isRecord(data) || data.handle !== handle) {
    return null;
  }
  if (![data.chunks, data.bytes, data.chars, data.lines].every(_count)) return null;
  return { chunks: data.chunks as number, bytes: data.bytes as number };
}

function _chunkText(entry: TapeEntry, handle: string, index: number): string | null {
  if (entry.meta.spill_handle !== handle || entry.meta.spill_chunk !== index) return null;
  const results = entry.payload.results;
  if (!Array.isArray(results) || results.length !== 1 || typeof results[0] !== "string") {
    return null;
  }
  return results[0];
}

/**
 * Reads a page of spilled chunks and renders the text the `spill.read` tool returns. Bad
 * arguments and missing data come back as text (the model reads it), never as errors.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { InMemoryTapeStore, Tape } from "@bub/core";
 * import { readSpill, SpillStore } from "@bub/core/tape";
 * const tape = new Tape({ store: new InMemoryTapeStore(), sidecars: [new SpillStore()] }).scoped("a__b");
 * assert.ok(await readSpill(tape, "missing") === "[no spilled tool result for handle 'missing']");
 * ```
 */
export async function readSpill(
  tape: Tape,
  handle: string,
  options: ReadSpillOptions = {},
): Promise<string> {
  const cursor = options.cursor ?? 0;
  const requested = options.count ?? 1;
  if (!Number.isInteger(cursor) || cursor < 0) return "`cursor` must be >= 0.";
  if (!Number.isInteger(requested) || requested < 1) return "`count` must be >= 1.";
  if (!tape.getSidecar(SPILL_SIDECAR)) return "spill sidecar unavailable in this context.";
  const count = Math.min(requested, SPILL_READ_MAX_CHUNKS);
  const sidecar = tape.sidecarTapeName(SPILL_SIDECAR);
  const manifest = await _manifest(tape, sidecar, handle);
  if (!manifest) return `[no spilled tool result for handle '${handle}']`;
  const total = manifest.chunks;
  let start: number, stop: number, next: number, complete: boolean;
  if (options.fromEnd) {
    stop = Math.max(0, total - cursor);
    start = Math.max(0, stop - count);
    next = cursor + (stop - start);
    complete = start === 0;
  } else {
    start = Math.min(cursor, total);
    stop = Math.min(start + count, total);
    next = stop;
    complete = stop === total;
  }
  let content = "";
  if (start === stop) complete = true;
  else {
    const chunks = await _query(
      new TapeQuery(sidecar, tape.store).afterAnchor(`spill/${handle}/chunk/${start}`).kinds(
        "tool_result",
      )
        .limit(stop - start),
    );
    const incomplete = (reason: string) => `[incomplete spilled tool result: ${reason}]`;
    if (chunks === null) return incomplete(`missing chunk ${start} for handle '${handle}'`);
    if (chunks.length < stop - start) return incomplete(`missing chunks for handle '${handle}'`);
    for (let i = 0; i < chunks.length; i++) {
      const text = _chunkText(chunks[i]!, handle, start + i);
      if (text === null) return incomplete(`invalid chunk ${start + i} for handle '${handle}'`);
      content += text;
    }
  }
  return [
    `[spilled tool result: ${withCommas(manifest.bytes)} bytes, ${withCommas(total)} chunks]`,
    `chunks: ${start === stop ? "none" : `${start}-${stop - 1}`}`,
    `next_cursor: ${next}`,
    `complete: ${complete ? "true" : "false"}`,
    "content:",
    content,
  ].join("\n");
}
