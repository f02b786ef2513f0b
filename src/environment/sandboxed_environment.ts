/**
 * {@link SandboxedEnvironment}: a {@link LocalEnvironment} whose processes run in a bubblewrap
 * sandbox (Seatbelt on macOS: `seatbelt_driver.ts`) and whose file reads and writes (the fs tools) reach only what the sandbox shows:
 * the workspace and the extra paths, never a hidden one.
 *
 * @module
 */
import { realpathSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { BubError } from "../kernel/errors.ts";
import type { SpawnOptions } from "../kernel/environment.ts";
import { LocalEnvironment } from "./local_environment.ts";
import type { LocalProcess } from "./local_process.ts";
import type { ProcessDriver } from "./process_driver.ts";
import { processDriver } from "./driver_select.ts";
import { createSandboxDriver, type SandboxDriver } from "./sandbox_driver.ts";
import type { SandboxProfile } from "./sandbox_profile.ts";

/** Options of {@link SandboxedEnvironment}. */
export interface SandboxedEnvironmentOptions {
  /** The driver the sandbox wraps (default: the running runtime's). */
  driver?: ProcessDriver;
  /** As in `LocalEnvironmentOptions.envPassthrough`. */
  envPassthrough?: readonly string[] | null;
  /**
   * Asked once before the first spawn: false runs processes on the host, unsandboxed (the
   * caller has warned; `sandbox_probe.ts`). Default: always sandboxed.
   */
  available?: () => Promise<boolean>;
}

function realpathLoose(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    const parent = dirname(path);
    return parent === path ? path : join(realpathLoose(parent), basename(path));
  }
}

function inside(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith("/") ? dir : `${dir}/`);
}

/**
 * The environment of a sandboxed session.
 *
 * @example
 * ```ts ignore
 * import { SandboxedEnvironment } from "./sandboxed_environment.ts";
 * import { DEFAULT_SANDBOX_LIMITS } from "./sandbox_profile.ts";
 * await using env = new SandboxedEnvironment({
 *   workspace: "/tmp", network: "off", readOnly: [], readWrite: [], hidden: [], home: null,
 *   limits: DEFAULT_SANDBOX_LIMITS,
 * });
 * const proc = await env.spawn("ls /proc");
 * ```
 */
export class SandboxedEnvironment extends LocalEnvironment {
  /** What its processes may reach. */
  readonly profile: SandboxProfile;

  /**
   * Creates the environment of `profile`.
   *
   * @param profile what processes and file tools may reach
   * @param options the wrapped driver and the passed-through secret names
   */
  constructor(profile: SandboxProfile, options: SandboxedEnvironmentOptions = {}) {
    super(profile.workspace, { envPassthrough: options.envPassthrough });
    this.profile = profile;
    this.#inner = options.driver ?? null;
    this.#envPassthrough = options.envPassthrough ?? null;
    // Settled before the first prompt: the lifespan has probed already.
    this.#available = options.available?.().then((ok) => this.#sandboxed = ok) ?? null;
    this.#available?.catch(() => {});
  }

  /**
   * A workspace that holds the home directory (the home itself, `/`) would show `~/.ssh` and
   * every other private file: such a profile is refused, loudly, at each use.
   */
  #refuseHomeWorkspace(): void {
    if (this.profile.home === null) return;
    const workspace = realpathLoose(this.profile.workspace);
    if (!inside(realpathLoose(this.profile.home), workspace)) return;
    throw new BubError(
      "config",
      `Cannot run sandboxed in workspace "${this.profile.workspace}": it holds the home directory ` +
        `(${this.profile.home}), whose private files the sandbox must hide. Start Bub in a ` +
        "project directory, or set sandbox: off to run this session's commands on the host",
      { workspace: this.profile.workspace, home: this.profile.home },
    );
  }

  /** False once the sandbox turned out unavailable (processes then run on the host). */
  get sandboxed(): boolean {
    return this.#sandboxed;
  }

  #inner: ProcessDriver | null;
  #envPassthrough: readonly string[] | null;
  #sandbox: SandboxDriver | null = null;
  #available: Promise<boolean> | null = null;
  #sandboxed = true;
  #closed = false;

  /**
   * The driver processes start through: the sandboxing one unless the sandbox is unavailable.
   *
   * @throws BubError (invalid_input) once closed: a sandbox driver created then would outlive
   *   the session (its spare, cgroups and proxy are released only by `close`)
   */
  override get driver(): ProcessDriver {
    if (!this.#sandboxed) return this.#inner ?? processDriver();
    if (this.#sandbox === null) {
      if (this.#closed) {
        throw new BubError(
          "invalid_input",
          "Cannot start a sandboxed process: the session's environment is closed",
        );
      }
      this.#sandbox = createSandboxDriver(this.#inner ?? processDriver(), this.profile);
    }
    return this.#sandbox;
  }

  /** Starts `command` in the sandbox (see `LocalEnvironment.spawn`). */
  override async spawn(command: string | string[], opts: SpawnOptions = {}): Promise<LocalProcess> {
    if (this.#available !== null) this.#sandboxed = await this.#available;
    if (this.#sandboxed) this.#refuseHomeWorkspace();
    return await super.spawn(command, opts);
  }

  /**
   * Starts the next command's sandbox ahead of it (see {@link SandboxDriver.prepare}): called when
   * a turn of the session starts, so that the sandbox's set-up runs while the model is asked and
   * even the session's first command finds its sandbox waiting. Nothing happens when a spare
   * waits already, the sandbox is unavailable (after the probe) or refused (a workspace holding
   * the home), or the environment is closed; an unused spare ends after its idle timeout or at
   * {@link SandboxedEnvironment.close}. Resolves once the spare's start is asked for.
   *
   * @example
   * ```ts ignore
   * import { SandboxedEnvironment } from "./sandboxed_environment.ts";
   * import { DEFAULT_SANDBOX_LIMITS } from "./sandbox_profile.ts";
   * await using env = new SandboxedEnvironment({
   *   workspace: "/tmp", network: "off", readOnly: [], readWrite: [], hidden: [], home: null,
   *   limits: DEFAULT_SANDBOX_LIMITS,
   * });
   * await env.prepare(); // the model is asked meanwhile
   * const proc = await env.spawn("ls"); // runs in the sandbox started above
   * ```
   */
  async prepare(): Promise<void> {
    if (this.#available !== null) {
      try {
        this.#sandboxed = await this.#available;
      } catch {
        return; // `required` without a sandbox: the command reports it
      }
    }
    // Closed while the probe was awaited: a driver created now would never be closed.
    if (this.#closed || !this.#sandboxed) return;
    try {
      this.#refuseHomeWorkspace();
    } catch {
      return; // the command itself reports it
    }
    (this.driver as SandboxDriver).prepare(this.#envPassthrough);
  }

  /** Releases the sandbox's resources (see {@link SandboxDriver.close}); nothing starts after. */
  override async close(): Promise<void> {
    this.#closed = true;
    await super.close();
    await this.#sandbox?.close();
  }

  /** Reads a UTF-8 file the sandbox shows (workspace or an extra path). */
  override async readText(path: string): Promise<string> {
    this.#check(path, [
      this.profile.workspace,
      ...this.profile.readOnly,
      ...this.profile.readWrite,
    ]);
    return await super.readText(path);
  }

  /** Writes a UTF-8 file inside the workspace or a read-write extra path. */
  override async writeText(path: string, content: string): Promise<void> {
    this.#check(path, [this.profile.workspace, ...this.profile.readWrite]);
    await super.writeText(path, content);
  }

  #check(path: string, allowed: readonly string[]): void {
    this.#refuseHomeWorkspace();
    const real = realpathLoose(this.resolvePath(path));
    const ok = allowed.some((dir) => inside(real, realpathLoose(dir))) &&
      !this.profile.hidden.some((dir) => inside(real, realpathLoose(dir)));
    if (!ok) {
      throw new BubError(
        "invalid_input",
        `Cannot access "${path}": it is outside the sandbox (the workspace is ${this.profile.workspace})`,
        { path, resolved: real },
      );
    }
  }
}
