/**
 * A policy plugin: deny dangerous `bash` commands before they run, and audit every tool call.
 *
 * Use it from config.yml (`plugins: [./examples/policy_plugin.ts]`) or register it in code:
 *   bub.register(policy);
 *
 * A denied call never reaches the shell; the model sees the denial as the tool's error and can
 * choose another way. Decisions are plain objects (`{ action: "deny", reason }`; the
 * `ToolCallDecision` class builds the same shapes). `policy: true` makes the plugin fail closed:
 * if its `beforeToolCall` throws, the call is denied with the error instead of running.
 */
import { definePlugin, hookimpl, type Plugin } from "../mod.ts";

/** Patterns that are never run. */
export const DENY: readonly RegExp[] = [
  /\brm\s+(-[a-z]*r[a-z]*f|-[a-z]*f[a-z]*r)\b/i, // rm -rf
  /\bmkfs(\.\w+)?\b/, // formatting disks
  /\bdd\s+[^|]*\bof=\/dev\//, // writing raw devices
  /:\(\)\s*\{\s*:\|:&\s*\};:/, // fork bomb
  /\b(shutdown|reboot|halt)\b/,
  /\bcurl\b[^|]*\|\s*(ba)?sh\b/, // piping downloads into a shell
];

/** True when `command` matches a denied pattern. */
export function isDangerous(command: string): boolean {
  return DENY.some((pattern) => pattern.test(command));
}

const policy: Plugin = definePlugin({
  name: "policy",
  policy: true,
  beforeToolCall({ call }) {
    if (call.tool !== "bash") return null;
    const command = String(call.arguments.command ?? call.arguments.cmd ?? "");
    if (isDangerous(command)) {
      return { action: "deny", reason: `Command refused by policy: ${command}` };
    }
    return null;
  },
  afterToolCall: hookimpl(({ call, result }) => {
    const status = result.error ? "failed" : "ok";
    console.error(`[policy] ${call.tool} ${status} in ${result.durationMs} ms`);
  }, { tryfirst: true }),
});

export default policy;
