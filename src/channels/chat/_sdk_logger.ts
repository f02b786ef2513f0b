/**
 * The Chat SDK's logger interface written to Bub's log, with the platform's secrets redacted.
 *
 * @module
 */
import type { Logger } from "chat";
import { redactSecrets } from "../../_internal/redact.ts";
import { getLogger } from "../../_internal/log.ts";

/** A Chat SDK logger writing to Bub's log (category `bub.channels.<platform>`), secrets redacted. */
export function sdkLogger(platform: string, secrets: readonly string[]): Logger {
  const make = (path: readonly [string, ...string[]]): Logger => {
    const log = getLogger(path);
    const line = (message: string, args: unknown[]): [string, Record<string, unknown>] => {
      let detail = "";
      if (args.length > 0) {
        try {
          detail = " " +
            JSON.stringify(
              args,
              (_key, value) => value instanceof Error ? `${value.name}: ${value.message}` : value,
            );
        } catch {
          detail = " " + String(args);
        }
      }
      return ["{line}", { line: redactSecrets(`${message}${detail}`, secrets) }];
    };
    return {
      child: (prefix) => make([...path, prefix]),
      debug: (message, ...args) => log.debug(...line(message, args)),
      info: (message, ...args) => log.debug(...line(message, args)),
      warn: (message, ...args) => log.warning(...line(message, args)),
      error: (message, ...args) => log.error(...line(message, args)),
    };
  };
  return make(["bub", "channels", platform, "sdk"]);
}
