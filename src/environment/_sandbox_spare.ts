/**
 * Private: a sandbox started ahead of its command. Setting up a sandbox costs more than the
 * command it runs (bwrap's namespaces and mounts, a root Bub's move into the session's cgroups,
 * which waits for an RCU grace period on cgroup v1, and a Telegram session's `socat` relay), so
 * once a session has run a command, the sandbox driver keeps one more sandbox started and waiting:
 * inside it, a `bash` reads the next command from its stdin (the working directory, the argv and
 * the variables, each NUL-terminated) and executes it in place. The command's pid, process group,
 * pipes and exit are the spare's own, so nothing downstream tells it from a freshly spawned one.
 * Each spare runs one command (its `/tmp` and home are still empty then); an unused spare ends
 * after {@link SPARE_IDLE_MS}.
 *
 * @module
 */
import type { DriverChild, ProcessDriver } from "./process_driver.ts";

/** How long an unused spare waits before it is ended. */
export const SPARE_IDLE_MS = 30_000;

/**
 * The script of a spare (after the egress relay, if any): reads the request, then `exec`s. bash
 * reads a pipe byte by byte, so nothing past the request (the command's own stdin) is consumed.
 */
export const SPARE_TRAMPOLINE = `IFS= read -r -d '' cwd || exit 125
IFS= read -r -d '' n || exit 125
args=()
for ((i = 0; i < n; i++)); do IFS= read -r -d '' a || exit 125; args+=("$a"); done
IFS= read -r -d '' n || exit 125
for ((i = 0; i < n; i++)); do IFS= read -r -d '' kv || exit 125; export "$kv"; done
cd -- "$cwd" || exit 125
unset cwd n i a kv
exec "\${args[@]}"`;

/** The bytes a spare reads: its working directory, argv and extra variables. */
export function spareRequest(
  cwd: string,
  argv: readonly string[],
  env: Readonly<Record<string, string>>,
): Uint8Array {
  const vars = Object.entries(env).map(([name, value]) => `${name}=${value}`);
  const fields = [cwd, String(argv.length), ...argv, String(vars.length), ...vars];
  return new TextEncoder().encode(fields.map((field) => `${field}\0`).join(""));
}

/** A started spare, and what it was started for. */
interface Spare {
  key: string;
  child: Promise<DriverChild>;
  exited: boolean;
  timer: ReturnType<typeof setTimeout>;
}

/** The one spare of a sandbox driver (at most one waits at a time). */
export class SpareSlot {
  #spare: Spare | null = null;
  #driver: ProcessDriver;
  #closed = false;

  /** @param driver the inner driver, which ends a spare's process group */
  constructor(driver: ProcessDriver) {
    this.#driver = driver;
  }

  /**
   * The waiting spare started for `key`, with `request` written to it, or null (none, another
   * key, or it is gone: then it is ended). A spare that is still starting is used as it is.
   */
  async take(key: string, request: Uint8Array): Promise<DriverChild | null> {
    const spare = this.#spare;
    if (spare === null) return null;
    this.#spare = null;
    clearTimeout(spare.timer);
    if (spare.key !== key) {
      void this.#end(spare);
      return null;
    }
    try {
      const child = await spare.child;
      if (spare.exited) return null;
      await child.writeStdin(request);
      return child;
    } catch {
      void this.#end(spare);
      return null;
    }
  }

  /** Starts a spare for `key` unless one waits already (or the slot is closed). */
  fill(key: string, start: () => Promise<DriverChild>): void {
    if (this.#spare !== null || this.#closed) return;
    const child = start();
    const spare: Spare = {
      key,
      child,
      exited: false,
      timer: setTimeout(() => {
        if (this.#spare === spare) this.#spare = null;
        void this.#end(spare);
      }, SPARE_IDLE_MS),
    };
    (spare.timer as { unref?: () => void }).unref?.();
    child.then((started) => started.exited.then(() => spare.exited = true), () => {
      spare.exited = true;
    });
    this.#spare = spare;
  }

  /** Ends the waiting spare; no new one starts. */
  async close(): Promise<void> {
    this.#closed = true;
    const spare = this.#spare;
    this.#spare = null;
    if (spare) {
      clearTimeout(spare.timer);
      await this.#end(spare);
    }
  }

  async #end(spare: Spare): Promise<void> {
    const child = await spare.child.catch(() => null);
    if (!child) return;
    // The clean end first: at end-of-file the waiting bash exits, and with it the whole sandbox
    // (its relay too); a group kill reaches only the processes outside bwrap's new session.
    child.closeStdin();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const ended = await Promise.race([
      child.exited.then(() => true),
      new Promise<boolean>((resolve) => timer = setTimeout(() => resolve(false), 1000)),
    ]);
    clearTimeout(timer);
    if (!ended) this.#driver.signalGroup(child.pid, "SIGKILL");
    await Promise.all([
      child.stdout.cancel().catch(() => {}),
      child.stderr.cancel().catch(() => {}),
      child.exited,
    ]);
  }
}
