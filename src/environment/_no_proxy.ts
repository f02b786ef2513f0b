/**
 * `NO_PROXY` inside a sandbox whose network is an allowlist: the host's entries minus those that
 * would send an allowlisted host around the proxy. Inside, the proxy is the only way out, so a
 * "direct" connection to an allowlisted host lands on the sandbox's own empty loopback (a host's
 * `NO_PROXY=localhost,127.0.0.1` made a Bot API on 127.0.0.1 unreachable for the skill script).
 * Entries that cover no allowlisted host stay, so a server started inside the sandbox is still
 * reached directly on its loopback.
 *
 * @module
 */

/** The names of the loopback interface, which `NO_PROXY` lists in any of these spellings. */
const LOOPBACK = /^(localhost|127(\.\d{1,3}){0,3}(\.\*)?|127\.0\.0\.0\/8|::1|\[::1\])$/i;

function hostOf(entry: string): string {
  const text = entry.trim().toLowerCase();
  const bracketed = /^\[([^\]]+)\](?::[\d*]+)?$/.exec(text);
  if (bracketed) return bracketed[1]!;
  // `host:port` (one colon); a bare IPv6 literal keeps its colons.
  return text.split(":").length === 2 ? text.split(":")[0]! : text;
}

function loopback(host: string): boolean {
  return LOOPBACK.test(host) || host === "localhost.";
}

/** True when the `NO_PROXY` entry `entry` matches `host` in the way curl, Node, Deno or Bun do. */
function covers(entry: string, host: string): boolean {
  const name = hostOf(entry).replace(/^\*?\./, "");
  if (name === "*" || name === "") return name === "*";
  if (loopback(name) && loopback(host)) return true;
  return host === name || host.endsWith(`.${name}`);
}

/**
 * `value` (a `NO_PROXY` list) without the entries that cover a host of `allow` (sandbox
 * allowlist entries: `host`, `host:port`, `*.host`); undefined when nothing is left.
 *
 * @example
 * ```ts
 * import { noProxyFor } from "./_no_proxy.ts";
 * console.assert(noProxyFor("localhost,127.0.0.1,.corp", ["127.0.0.1:8081"]) === ".corp");
 * ```
 */
export function noProxyFor(
  value: string | undefined,
  allow: readonly string[],
): string | undefined {
  if (value === undefined) return undefined;
  const hosts = allow.map((entry) => hostOf(entry).replace(/^\*\./, "x."));
  const kept = value.split(",").map((entry) => entry.trim()).filter((entry) =>
    entry !== "" && !hosts.some((host) => covers(entry, host))
  );
  return kept.length > 0 ? kept.join(",") : undefined;
}
