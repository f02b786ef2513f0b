/**
 * Test fixtures for the kernel: frameworks in throwaway directories, deferred promises and a
 * recording environment.
 *
 * @module
 */
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BubFramework } from "../../src/builtin/framework.ts";
import { Environment, type Process } from "../../src/kernel/environment.ts";
import { KernelFramework } from "../../src/kernel/framework.ts";

/** A temporary directory removed on dispose. */
export interface TempDir extends Disposable {
  /** The absolute, symlink-resolved path. */
  readonly path: string;
}

/** Creates a temporary directory; use with `using tmp = tempDir();`. */
export function tempDir(prefix: string = "bub-kernel-test-"): TempDir {
  const path = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  return { path, [Symbol.dispose]: () => rmSync(path, { recursive: true, force: true }) };
}

/** Options of {@link kernelFixture}. */
export interface KernelFixtureOptions {
  /** Text of `config.yml` (written before construction). */
  config?: string;
  /** Build a `BubFramework` (with builtin hooks loaded) instead of a bare kernel. */
  builtin?: boolean;
}

/** A framework whose config file, home and workspace live in a temporary directory. */
export interface KernelFixture extends Disposable {
  /** The framework. */
  readonly framework: KernelFramework;
  /** The temporary directory (also the workspace). */
  readonly dir: string;
}

/** Creates a framework in a fresh temp dir; use with `using fx = kernelFixture();`. */
export function kernelFixture(options: KernelFixtureOptions = {}): KernelFixture {
  const tmp = tempDir();
  try {
    const configFile = join(tmp.path, "config.yml");
    if (options.config !== undefined) writeFileSync(configFile, options.config);
    const init = { loadDotenv: false, configFile, home: tmp.path, workspace: tmp.path };
    const framework = options.builtin ? new BubFramework(init) : new KernelFramework(init);
    if (options.builtin) framework.loadBuiltinHooks();
    return { framework, dir: tmp.path, [Symbol.dispose]: () => tmp[Symbol.dispose]() };
  } catch (error) {
    tmp[Symbol.dispose]();
    throw error;
  }
}

/** A promise with its resolve and reject functions. */
export interface Deferred<T> {
  /** The promise. */
  readonly promise: Promise<T>;
  /** Resolves it. */
  resolve(value: T): void;
  /** Rejects it. */
  reject(error: unknown): void;
}

/** A promise resolved or rejected from outside. */
export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** A promise that rejects with `signal.reason` once `signal` aborts (and never resolves). */
export function untilAborted(signal: AbortSignal | undefined): Promise<never> {
  return new Promise<never>((_, reject) => {
    if (!signal) return;
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}

/** An environment that only records whether it was closed (and can fail to close). */
export class RecordingEnvironment extends Environment {
  /** How often `close` ran. */
  closeCount = 0;
  /** A label for assertions. */
  readonly label: string;
  #closeError: Error | null;

  /** @param label a label @param workspace the workspace @param closeError thrown by close */
  constructor(label: string, workspace: string | null = null, closeError: Error | null = null) {
    super(workspace);
    this.label = label;
    this.#closeError = closeError;
  }

  /** Not supported. */
  spawn(): Promise<Process> {
    return Promise.reject(new Error("RecordingEnvironment cannot spawn"));
  }

  /** Not supported. */
  readText(): Promise<string> {
    return Promise.reject(new Error("RecordingEnvironment cannot read"));
  }

  /** Not supported. */
  writeText(): Promise<void> {
    return Promise.reject(new Error("RecordingEnvironment cannot write"));
  }

  /** Counts the call; throws when constructed with a close error. */
  override close(): Promise<void> {
    this.closeCount++;
    return this.#closeError ? Promise.reject(this.#closeError) : Promise.resolve();
  }
}
