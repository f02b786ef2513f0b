/**
 * The spill sidecar (§5.12): oversized tool results go to `<tape>__sidecar__spill` in chunks
 * and the model gets a short reference plus a preview.
 *
 * @module
 */
import { getLogger } from "../_internal/log.ts";
import type { TapeSidecar } from "../kernel/tape_context.ts";
import { codePointLength, headCodePoints, tailCodePoints, withCommas } from "../_internal/text.ts";
import { createEntry, type TapeEntry } from "./entry.ts";
import { appendAll } from "./store.ts";
import type { Tape } from "./tape.ts";

const logger = getLogger(["bub", "tape", "spill"]);

/**
 * The spill sidecar name.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { InMemoryTapeStore, Tape } from "@bub/core";
 * import { SPILL_SIDECAR, SpillStore } from "@bub/core/tape";
 * const tape = new Tape({ store: new InMemoryTapeStore(), sidecars: [new SpillStore()] }).scoped("t");
 * assert.equal(tape.sidecarTapeName(SPILL_SIDECAR), "t__sidecar__spill");
 * ```
 */
export const SPILL_SIDECAR = "spill";
/**
 * Default threshold in estimated tokens (4 chars each).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_SPILL_THRESHOLD, SpillStore } from "@bub/core/tape";
 * assert.equal(new SpillStore().threshold, DEFAULT_SPILL_THRESHOLD);
 * ```
 */
export const DEFAULT_SPILL_THRESHOLD = 4096;
/**
 * Largest chunk, in UTF-8 bytes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SPILL_CHUNK_BYTES, splitUtf8 } from "@bub/core/tape";
 * assert.equal(splitUtf8(new Uint8Array(SPILL_CHUNK_BYTES + 1)).length, 2);
 * ```
 */
export const SPILL_CHUNK_BYTES = 16_384;

/**
 * Settings of {@link SpillStore}.
 *
 * @example
 * ```ts
 * import { type SpillSettings, SpillStore } from "@bub/core/tape";
 * const settings: SpillSettings = { threshold: 1024 }; // spill tool output over ~4096 characters
 * const spill = new SpillStore(settings);
 * ```
 */
export interface SpillSettings {
  /** Estimated tokens (4 chars each) from which a result spills; 0 stops new spills. Default 4096. */
  threshold?: number;
}

/**
 * The spill sidecar: mount it (via `provideTapeSidecar`) to spill oversized tool results.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SpillStore } from "@bub/core/tape";
 * const spill = new SpillStore({ threshold: 100 });
 * assert.ok(spill.name === "spill" && spill.threshold === 100);
 * ```
 */
export class SpillStore implements TapeSidecar {
  /** Always `spill`. */
  readonly name: string = SPILL_SIDECAR;
  /** Estimated tokens from which results spill (0: never). */
  readonly threshold: number;

  /**
   * Creates the object.
   *
   * @param settings the threshold (must be an integer >= 0)
   */
  constructor(settings: SpillSettings = {}) {
    const threshold = settings.threshold ?? DEFAULT_SPILL_THRESHOLD;
    if (!Number.isInteger(threshold) || threshold < 0) {
      throw new RangeError(`Invalid spill threshold: expected an integer >= 0, got ${threshold}`);
    }
    this.threshold = threshold;
  }
}

/**
 * The preview: the text when <= 600 chars, else 300 + `...[<n> chars omitted]...` + 300.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { spillPreview } from "@bub/core/tape";
 * assert.equal(spillPreview("short"), "short");
 * assert.match(spillPreview("x".repeat(1000)), /\.\.\.\[400 chars omitted\]\.\.\./);
 * ```
 */
export function spillPreview(text: string): string {
  const length = codePointLength(text);
  if (length <= 600) return text;
  return `${headCodePoints(text, 300)}\n...[${withCommas(length - 600)} chars omitted]...\n${
    tailCodePoints(text, 300)
  }`;
}

/**
 * Splits UTF-8 bytes into chunks of at most `max` bytes, never inside a character.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { splitUtf8 } from "@bub/core/tape";
 * const chunks = splitUtf8(new TextEncoder().encode("ééé"), 3); // never splits a character
 * assert.deepEqual(chunks.map((chunk) => new TextDecoder().decode(chunk)), ["é", "é", "é"]);
 * ```
 */
export function splitUtf8(bytes: Uint8Array, max: number = SPILL_CHUNK_BYTES): Uint8Array[] {
  const out: Uint8Array[] = [];
  let start = 0;
  while (start < bytes.length) {
    let end = Math.min(start + max, bytes.length);
    // Step back while the first byte after the cut is a continuation byte (10xxxxxx).
    while (end < bytes.length && end > start && (bytes[end]! & 0xc0) === 0x80) end--;
    out.push(bytes.subarray(start, end));
    start = end;
  }
  return out;
}

/**
 * What {@link spillText} needs to know about the call.
 *
 * @example
 * ```ts
 * import { InMemoryTapeStore, Tape } from "@bub/core";
 * import { type SpillContext, SpillStore, spillText } from "@bub/core/tape";
 * const tape = new Tape({ store: new InMemoryTapeStore(), sidecars: [new SpillStore({ threshold: 8 })] }).scoped("t");
 * const context: SpillContext = { tool: "bash", runId: "run-1" };
 * const reference = await spillText(tape, "line\n".repeat(20), context);
 * ```
 */
export interface SpillContext {
  /** The tool's runtime name. */
  tool: string;
  /** The run id. */
  runId?: string;
}

const DECODER = new TextDecoder();

/** True when `text` would spill on `tape`. */
export function shouldSpill(tape: Tape, text: string, tool: string): boolean {
  const sidecar = tape.getSidecar(SPILL_SIDECAR) as Partial<SpillStore> | null;
  if (!sidecar) return false;
  const threshold = typeof sidecar.threshold === "number"
    ? sidecar.threshold
    : DEFAULT_SPILL_THRESHOLD;
  if (threshold <= 0 || tool === "spill.read" || tool === "spill_read") return false;
  return text.length >= threshold * 4 && codePointLength(text) >= threshold * 4;
}

/**
 * Spills `text` when it is oversized: writes chunks and a manifest to the spill sidecar tape,
 * records `spill.write` on the main tape, and returns the model-facing reference. Returns null
 * when nothing spilled.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { InMemoryTapeStore, Tape } from "@bub/core";
 * import { SpillStore, spillText } from "@bub/core/tape";
 * const tape = new Tape({ store: new InMemoryTapeStore(), sidecars: [new SpillStore({ threshold: 8 })] }).scoped("t");
 * assert.equal(await spillText(tape, "short", { tool: "bash" }), null);
 * const reference = await spillText(tape, "line\n".repeat(20), { tool: "bash" });
 * assert.match(String(reference), /spill/);
 * ```
 */
export async function spillText(
  tape: Tape,
  text: string,
  context: SpillContext,
): Promise<string | null> {
  if (!shouldSpill(tape, text, context.tool)) return null;
  const handle = crypto.randomUUID().replaceAll("-", "");
  const bytes = new TextEncoder().encode(text);
  const chunks = splitUtf8(bytes);
  const runMeta = context.runId ? { run_id: context.runId } : {};
  const preview = spillPreview(text);
  try {
    const entries: TapeEntry[] = [];
    chunks.forEach((chunk, i) => {
      entries.push(createEntry("anchor", { name: `spill/${handle}/chunk/${i}` }));
      entries.push(createEntry("tool_result", { results: [DECODER.decode(chunk)] }, {
        spill_handle: handle,
        spill_chunk: i,
      }));
    });
    entries.push(createEntry("anchor", { name: `spill/${handle}/manifest` }));
    entries.push(createEntry("event", {
      name: "spill.manifest",
      data: {
        handle,
        chunks: chunks.length,
        bytes: bytes.length,
        chars: codePointLength(text),
        lines: text.split("\n").length,
        tool: context.tool,
      },
    }, { spill_handle: handle, ...runMeta }));
    await appendAll(tape.store, tape.sidecarTapeName(SPILL_SIDECAR), entries);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    logger.warn("spill.write_failed {handle}: {error}", { handle, error: message });
    await _recordWrite(tape, {
      status: "error",
      handle,
      bytes: bytes.length,
      tool: context.tool,
      error: message,
    }, runMeta);
    return `[tool output truncated: ${
      withCommas(bytes.length)
    } bytes; spill storage failed]\n${preview}`;
  }
  await _recordWrite(tape, {
    status: "ok",
    handle,
    bytes: bytes.length,
    chunks: chunks.length,
    tool: context.tool,
  }, runMeta);
  return `[tool output spilled: ${withCommas(bytes.length)} bytes in ${
    withCommas(chunks.length)
  } chunks; handle: ${handle}]\n[read with: spill_read(handle='${handle}', cursor=0, count=1, from_end=False)]\n${preview}`;
}

async function _recordWrite(
  tape: Tape,
  data: Record<string, unknown>,
  meta: Record<string, unknown>,
): Promise<void> {
  try {
    await tape.appendEvent("spill.write", data, { ...meta, context: false });
  } catch (error) {
    logger.warn("spill.write_event_failed: {error}", { error: String(error) });
  }
}
