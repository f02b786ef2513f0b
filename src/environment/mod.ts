/**
 * Environments: the local environment and process, the shell runtime (managed shells, shell
 * scopes) and the process driver contract.
 *
 * @example Run a command in the workspace
 * ```ts
 * import assert from "node:assert/strict";
 * import { LocalEnvironment, ShellManager } from "@bub/core/environment";
 * await using env = new LocalEnvironment();
 * assert.equal(await new ShellManager().run({ command: "echo hi", environment: env }), "hi");
 * ```
 *
 * @module
 */
export { LocalEnvironment, type LocalEnvironmentOptions } from "./local_environment.ts";
export { LocalProcess } from "./local_process.ts";
export { environmentFromState } from "./from_state.ts";
export {
  ShellCommandError,
  ShellManager,
  type ShellManagerOptions,
  type ShellOutputOptions,
  type ShellRunOptions,
  type ShellStartOptions,
} from "./shell_manager.ts";
export { SHELL_RUNTIME_CLOSED, ShellScope } from "./shell_scope.ts";
export { DEFAULT_SHELL_TIMINGS, ManagedShell, type ShellTimings } from "./managed_shell.ts";
export type {
  DriverChild,
  DriverSpawnRequest,
  GroupSignal,
  ProcessDriver,
  SignalOutcome,
} from "./process_driver.ts";
