/**
 * Tape names: a session tape is named from the md5 of its workspace and session id.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { resolve } from "node:path";

function _md5(text: string): string {
  return createHash("md5").update(text, "utf8").digest("hex");
}

/**
 * The session tape name: `md5(workspace)[0:16] + "__" + md5(sessionId)[0:16]`, with the
 * workspace resolved to an absolute path first. The same session in another workspace gets
 * another tape.
 *
 * @example
 * ```ts
 * import { sessionTapeName } from "@bub/core";
 * const name = sessionTapeName("cli:local", "/work/project");
 * console.assert(/^[0-9a-f]{16}__[0-9a-f]{16}$/.test(name));
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
