/**
 * Tape names: a session tape is named from the md5 of its workspace and session id; the way back
 * is the session id its bootstrap anchor's meta records.
 *
 * @module
 */
import { resolve } from "node:path";
import { md5Hex } from "../_internal/md5.ts";
import { TapeQuery } from "./query.ts";
import type { TapeStore } from "./store.ts";

/** Recent digests: a session's tape is named on every turn, from the same two texts. */
const digests = new Map<string, string>();

function _md5(text: string): string {
  let digest = digests.get(text);
  if (digest === undefined) {
    if (digests.size >= 256) digests.clear();
    digest = md5Hex(text);
    digests.set(text, digest);
  }
  return digest;
}

/**
 * The session tape name: `md5(workspace)[0:16] + "__" + md5(sessionId)[0:16]`, with the
 * workspace resolved to an absolute path first. The same session in another workspace gets
 * another tape.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sessionTapeName } from "@bub/core/tape";
 * const name = sessionTapeName("cli:local", "/work/project");
 * assert.ok(/^[0-9a-f]{16}__[0-9a-f]{16}$/.test(name));
 * ```
 */
export function sessionTapeName(sessionId: string, workspace: string): string {
  if (typeof sessionId !== "string") {
    throw new TypeError(
      `Cannot name session tape: session id must be a string, got ${typeof sessionId}`,
    );
  }
  if (typeof workspace !== "string" || workspace === "") {
    throw new TypeError(
      `Cannot name tape of session ${
        JSON.stringify(sessionId)
      }: workspace must be a non-empty path`,
    );
  }
  return `${_md5(resolve(workspace)).slice(0, 16)}__${_md5(sessionId).slice(0, 16)}`;
}

/**
 * The session id recorded in the meta of tape `tape`'s bootstrap anchor (`session_id`), or null
 * (a tape written before Bub recorded it, or one that is not a session's).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { InMemoryTapeStore, Tape } from "@bub/core";
 * import { sessionTapeName, tapeSessionId } from "@bub/core/tape";
 * const store = new InMemoryTapeStore();
 * const name = sessionTapeName("telegram:42", "/work");
 * await new Tape({ store }).scoped(name).ensureBootstrapAnchor("telegram:42");
 * assert.equal(await tapeSessionId(store, name), "telegram:42");
 * ```
 */
export async function tapeSessionId(store: TapeStore, tape: string): Promise<string | null> {
  const [anchor] = await new TapeQuery(tape, store).kinds("anchor").limit(1).all();
  const id = anchor?.meta?.session_id;
  return typeof id === "string" ? id : null;
}
