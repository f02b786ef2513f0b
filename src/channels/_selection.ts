/**
 * Which channels a manager starts: the `enabled_channels` selection rules.
 *
 * @module
 */
import type { Channel } from "../kernel/channel.ts";
import { Interface, Lifecycle } from "./channel.ts";

/**
 * Splits configured names (strings may hold comma-separated lists) into trimmed, non-empty
 * tokens.
 *
 * @throws {TypeError} unless `names` is a string or a list of strings
 */
export function parseChannelNames(names: string | readonly string[]): string[] {
  const list = typeof names === "string" ? [names] : names;
  if (!Array.isArray(list) || list.some((name) => typeof name !== "string")) {
    throw new TypeError(
      `Invalid enabled channels: expected a comma-separated string or a list of names, got ${
        JSON.stringify(names)
      }`,
    );
  }
  return list.flatMap((name) => name.split(",")).map((name) => name.trim()).filter((name) =>
    name !== ""
  );
}

function isEnabled(channel: Channel): boolean {
  return channel.enabled !== false;
}

/**
 * The enabled channels, in the map's order: with `all`, every enabled, non-excluded channel that
 * is not an {@link Interface}; otherwise the named ones, plus every other enabled, non-excluded
 * {@link Lifecycle} channel when at least one named channel is not a Lifecycle. `!name` excludes.
 */
export function selectChannels(
  channels: ReadonlyMap<string, Channel>,
  names: readonly string[],
): Channel[] {
  const included = new Set(names.filter((name) => !name.startsWith("!")));
  const excluded = new Set(
    names.filter((name) => name.startsWith("!")).map((name) => name.slice(1)),
  );
  const all = [...channels.entries()];
  if (included.has("all")) {
    return all
      .filter(([name, channel]) =>
        !excluded.has(name) && isEnabled(channel) && !(channel instanceof Interface)
      )
      .map(([, channel]) => channel);
  }
  const selected = all
    .filter(([name, channel]) => included.has(name) && !excluded.has(name) && isEnabled(channel))
    .map(([, channel]) => channel);
  if (!selected.some((channel) => !(channel instanceof Lifecycle))) return selected;
  const extra = all
    .filter(([name, channel]) =>
      channel instanceof Lifecycle && !excluded.has(name) && isEnabled(channel) &&
      !selected.includes(channel)
    )
    .map(([, channel]) => channel);
  return [...selected, ...extra];
}
