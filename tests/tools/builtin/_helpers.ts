/** Shared helpers of the builtin tool tests: temp workspaces, tapes, tool contexts, registries. */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestContext } from "node:test";
import { ShellManager } from "../../../src/environment/shell_manager.ts";
import type { TurnState } from "../../../src/kernel/turn.ts";
import { InMemoryTapeStore } from "../../../src/tape/memory_store.ts";
import { Tape } from "../../../src/tape/tape.ts";
import { type BuiltinToolDeps, createBuiltinTools } from "../../../src/tools/builtin/mod.ts";
import { ToolRegistry } from "../../../src/tools/registry.ts";
import type { ToolContext } from "../../../src/tools/tool.ts";

/** Short shell termination timings. */
export const FAST_TIMINGS = { pollIntervalMs: 10, terminateTimeoutMs: 400, drainTimeoutMs: 300 };

/** A fresh temp directory, removed after the test. */
export async function tempWorkspace(t: TestContext, prefix = "bub-tools-"): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A scoped in-memory tape. */
export function memoryTape(name = "a__b"): Tape {
  return new Tape({ store: new InMemoryTapeStore() }).scoped(name);
}

/** A tool context over `tape` (default: a fresh memory tape) and `state`. */
export function toolContext(state: TurnState = {}, tape: Tape = memoryTape()): ToolContext {
  return { tape, runId: "run-test", state };
}

/** A shell manager whose scope is closed (terminating its shells) after the test. */
export function scopedShells(t: TestContext): ShellManager {
  const shells = new ShellManager({ timings: FAST_TIMINGS });
  const scope = shells.openScope();
  t.after(() => scope.close());
  return shells;
}

/** A registry holding every builtin tool, with a scoped shell manager unless `deps.shells` is given. */
export function builtinRegistry(
  t: TestContext,
  deps: Partial<BuiltinToolDeps> = {},
): { registry: ToolRegistry; shells: ShellManager } {
  const shells = deps.shells ?? scopedShells(t);
  const registry = new ToolRegistry(
    createBuiltinTools({ builtinSkillDirs: [], ...deps, shells }),
  );
  return { registry, shells };
}

/** The `bash-xxxxxxxx` id in a tool text. */
export function shellIdOf(text: string): string {
  const match = /bash-[0-9a-f]{8}/.exec(text);
  if (!match) throw new Error(`No shell id in ${JSON.stringify(text)}`);
  return match[0];
}

/** Waits until `check()` holds, polling every 10 ms; throws after `ms`. */
export async function eventually(check: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("Timed out waiting for a condition");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
