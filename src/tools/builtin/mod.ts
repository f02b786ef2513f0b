/**
 * The builtin tool catalogue (spec/builtin.md §6.7 with the seed-era changes of §14): shell, file,
 * web, tape, skill, spill, subagent and the operator-only session tools.
 *
 * @module
 */
import type { ShellManager } from "../../environment/shell_manager.ts";
import type { ConfigLookup } from "../../skills/body.ts";
import type { ToolRegistry } from "../registry.ts";
import type { Tool } from "../tool.ts";
import { bashTools } from "./bash.ts";
import { fsTools } from "./fs.ts";
import { helpTool, modelTool, type QuitSession, quitTool, reasoningEffortTool } from "./session.ts";
import { skillTool } from "./skill.ts";
import { spillReadTool } from "./spill_read.ts";
import { subagentTool } from "./subagent.ts";
import { tapeTools } from "./tape.ts";
import { webFetchTool } from "./web.ts";

export { isKeywordOnlyTool } from "./_context.ts";

/**
 * What the builtin tools need from their host.
 *
 * @example
 * ```ts
 * import { ShellManager } from "@bub/core/environment";
 * import { type BuiltinToolDeps, createBuiltinTools } from "@bub/core/tools";
 * const deps: BuiltinToolDeps = { shells: new ShellManager(), home: "/tmp/bub-home" };
 * const tools = createBuiltinTools(deps);
 * ```
 */
export interface BuiltinToolDeps {
  /** The shell runtime behind `bash`, `bash.output`, `bash.kill` and `quit`. */
  shells: ShellManager;
  /** The user's home directory for global skills. @default os.homedir() */
  home?: string;
  /** Folders of builtin skills. @default the package's builtin skills */
  builtinSkillDirs?: readonly string[];
  /** Resolves `${config.<path>}` in skill bodies. @default every path is unknown */
  configLookup?: ConfigLookup;
  /** Called by `quit` after the session's shells are terminated. */
  quitSession?: QuitSession;
  /** The `fetch` of `web.fetch`. @default globalThis.fetch */
  fetch?: typeof fetch;
  /** The body size cap of `web.fetch` in bytes. @default 10 MiB */
  webFetchMaxBytes?: number;
  /** Tools `help` lists after its text (the MCP servers' tools). @default none */
  helpTools?: () => Iterable<Tool>;
}

/**
 * Builds every builtin tool, in catalogue order: `bash`, `bash.output`, `bash.kill`, `fs.read`,
 * `fs.write`, `fs.edit`, `skill`, `tape.info`, `tape.search`, `tape.reset`, `tape.handoff`,
 * `tape.anchors`, `web.fetch`, `subagent`, `help`, `quit`, `model`, `reasoning_effort`,
 * `spill.read`.
 *
 * @example Register the catalogue
 * ```ts
 * import assert from "node:assert/strict";
 * import { ShellManager } from "../../environment/shell_manager.ts";
 * import { ToolRegistry } from "../registry.ts";
 * import { createBuiltinTools } from "./mod.ts";
 * const registry = new ToolRegistry(createBuiltinTools({ shells: new ShellManager() }));
 * assert.ok(registry.resolveToolName("fs_read") === "fs.read");
 * ```
 */
export function createBuiltinTools(deps: BuiltinToolDeps): Tool[] {
  if (!deps || typeof deps.shells?.run !== "function") {
    throw new TypeError("Cannot create builtin tools: deps.shells must be a ShellManager");
  }
  return [
    ...bashTools(deps.shells),
    ...fsTools(),
    skillTool({
      home: deps.home,
      builtinSkillDirs: deps.builtinSkillDirs,
      configLookup: deps.configLookup,
    }),
    ...tapeTools(),
    webFetchTool({ fetch: deps.fetch, maxBytes: deps.webFetchMaxBytes }),
    subagentTool(),
    helpTool(deps.helpTools),
    quitTool(deps.shells, deps.quitSession),
    modelTool(),
    reasoningEffortTool(),
    spillReadTool(),
  ];
}

/**
 * Registers {@link createBuiltinTools}`(deps)` in `registry` and returns the tools.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ShellManager } from "@bub/core/environment";
 * import { registerBuiltinTools, ToolRegistry } from "@bub/core/tools";
 * const registry = new ToolRegistry();
 * registerBuiltinTools(registry, { shells: new ShellManager() });
 * assert.ok(registry.has("bash"));
 * ```
 */
export function registerBuiltinTools(registry: ToolRegistry, deps: BuiltinToolDeps): Tool[] {
  const tools = createBuiltinTools(deps);
  for (const tool of tools) registry.register(tool);
  return tools;
}
