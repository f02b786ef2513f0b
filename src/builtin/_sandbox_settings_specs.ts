/**
 * Private: the field specs of the sandbox settings (`sandbox`, `sandbox_network`, paths and
 * limits) and the reading of `sandbox_network`.
 *
 * @module
 */
import { s as z, type Schema } from "../_internal/schema.ts";
import { BubError } from "../kernel/errors.ts";
import { parseAllowlist } from "../environment/egress_proxy.ts";
import type { SandboxNetwork } from "../environment/sandbox_profile.ts";
import type { SectionSpec } from "./_settings_fields.ts";
import { checked, field, positiveIntOrNull, seconds, textList } from "./_settings_schemas.ts";

/** The values of `sandbox`. */
export const SANDBOX_MODES = ["off", "remote", "all", "required"] as const;

/**
 * The network of a `sandbox_network` value: `off`, `on`, or the hosts of a YAML list, a JSON
 * list or a comma-separated string (see `egress_proxy.ts` for what an entry may say).
 *
 * @throws BubError (config) for anything else, or a host entry that is not a host
 */
export function sandboxNetworkOf(value: unknown): SandboxNetwork {
  if (value === "off" || value === "on") return value;
  let hosts: unknown = value;
  if (typeof value === "string") {
    const text = value.trim();
    try {
      hosts = text.startsWith("[") ? JSON.parse(text) : text.split(",");
    } catch {
      hosts = null;
    }
  }
  if (!Array.isArray(hosts) || !hosts.every((host) => typeof host === "string")) {
    throw new BubError(
      "config",
      `sandbox_network: must be off, on, or a list of hosts, got ${JSON.stringify(value)}`,
    );
  }
  const allow = hosts.map((host) => host.trim()).filter((host) => host !== "");
  if (allow.length === 0) {
    throw new BubError("config", "sandbox_network: an empty host list (use off for no network)");
  }
  parseAllowlist(allow);
  return { allow };
}

function sandboxNetworkSchema(): Schema<unknown> {
  return checked(z.unknown(), (value) => {
    try {
      sandboxNetworkOf(value);
      return null;
    } catch (error) {
      return (error as Error).message.replace(/^sandbox_network: /, "");
    }
  });
}

/** Spec of the sandbox settings (YAML root, `BUB_SANDBOX*`). */
export const SANDBOX: SectionSpec = {
  section: "",
  prefix: "BUB_",
  fields: [
    field(
      "sandbox",
      "string",
      () =>
        checked(
          z.string(),
          (value) =>
            (SANDBOX_MODES as readonly unknown[]).includes(value)
              ? null
              : `must be one of ${SANDBOX_MODES.join(", ")}`,
        ),
      `one of ${SANDBOX_MODES.join(", ")}`,
      // Every session not of the local terminal; a Telegram session's sandbox reaches its Bot API
      // (environment_hooks.ts), so its skill script answers (tests/e2e/gateway_telegram.test.ts).
      "remote",
    ),
    field(
      "sandbox_network",
      "string",
      sandboxNetworkSchema,
      "off, on, or a list of hosts (a YAML list, or comma-separated)",
      "off",
    ),
    field(
      "sandbox_paths",
      "list_text",
      textList,
      "a comma-separated string of paths (`:rw` after a path binds it read-write), or null",
      null,
    ),
    field("sandbox_cpu_seconds", "float", seconds, "a number greater than 0, or null", 600),
    field("sandbox_memory_mb", "int", positiveIntOrNull, "an integer, or null", 65536),
    field("sandbox_processes", "int", positiveIntOrNull, "an integer, or null", 512),
    field("sandbox_file_mb", "int", positiveIntOrNull, "an integer, or null", 1024),
  ],
};
