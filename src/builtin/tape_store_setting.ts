/**
 * The `tape_store` setting (`BUB_TAPE_STORE`): which store the builtin plugin provides —
 * `file` (default, `<home>/tapes`), `memory`, `sqlite:<path>` or a `postgres://` /
 * `postgresql://` URL.
 *
 * @module
 */
import { isAbsolute, join } from "node:path";
import { expandHome } from "../_internal/home.ts";
import { BubError } from "../kernel/errors.ts";
import { FileTapeStore } from "../tape/file_store.ts";
import { InMemoryTapeStore } from "../tape/memory_store.ts";
import { PostgresTapeStore } from "../tape/postgres_store.ts";
import { SqliteTapeStore } from "../tape/sqlite_store.ts";
import type { TapeStore } from "../tape/store.ts";

/** A parsed `tape_store` value. */
export type TapeStoreChoice =
  | { readonly kind: "file" }
  | { readonly kind: "memory" }
  | { readonly kind: "sqlite"; readonly path: string }
  | { readonly kind: "postgres"; readonly url: string };

/** What the setting accepts, for messages. */
export const TAPE_STORE_EXPECTED =
  "file, memory, sqlite:<path>, or a postgres:// or postgresql:// URL";

/** The parsed value, or null when `value` is not a valid `tape_store`. */
export function parseTapeStoreChoice(value: unknown): TapeStoreChoice | null {
  if (typeof value !== "string") return null;
  const text = value.trim();
  if (text === "file") return { kind: "file" };
  if (text === "memory") return { kind: "memory" };
  if (text.startsWith("sqlite:")) {
    const path = text.slice("sqlite:".length).trim();
    return path === "" ? null : { kind: "sqlite", path };
  }
  if (/^postgres(ql)?:\/\/[^\s]+$/i.test(text)) return { kind: "postgres", url: text };
  return null;
}

/** Options of {@link createTapeStoreFromSetting}. */
export interface TapeStoreSettingOptions {
  /**
   * `tape_store_retry_seconds`: how long the file, SQLite and PostgreSQL stores retry while
   * unavailable (default: the store's own, 0).
   */
  retrySeconds?: number;
}

/**
 * Creates the store the setting names: a relative SQLite path is under `home`, `~` is the
 * user's home. A bad value is a `config` BubError naming the setting.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createTapeStoreFromSetting } from "./tape_store_setting.ts";
 * const store = createTapeStoreFromSetting("memory", "/tmp/bub-home");
 * assert.ok((await store.listTapes()).length === 0);
 * ```
 */
export function createTapeStoreFromSetting(
  value: string,
  home: string,
  options: TapeStoreSettingOptions = {},
): TapeStore & AsyncDisposable {
  const choice = parseTapeStoreChoice(value);
  const retry = options.retrySeconds === undefined ? {} : { retrySeconds: options.retrySeconds };
  switch (choice?.kind) {
    case "file":
      return new FileTapeStore(join(home, "tapes"), retry);
    case "memory":
      return new InMemoryTapeStore();
    case "sqlite": {
      const path = expandHome(choice.path);
      return new SqliteTapeStore(isAbsolute(path) ? path : join(home, path), retry);
    }
    case "postgres":
      return new PostgresTapeStore(choice.url, retry);
    default:
      throw new BubError(
        "config",
        `tape_store must be ${TAPE_STORE_EXPECTED}, got ${JSON.stringify(value)}`,
        { key: "tape_store", value },
      );
  }
}
