/**
 * The state a `FileTapeStore` shares with its parts (see `../file_store.ts`): the directory, the
 * caches and open files, the per-key mutex, the lock template and spare file, the retry policy and
 * the fork journals; with the directory checks, the error wrapping and the batch write every
 * write path (appends, fork commits) goes through.
 *
 * @module
 */
import { accessSync, constants, statSync } from "node:fs";
import { mkdir, readdir } from "node:fs/promises";
import { join } from "node:path";
import { BubError } from "../../kernel/errors.ts";
import { validateTapeName } from "../entry.ts";
import { KeyedMutex } from "../store/_mutex.ts";
import { retrySecondsOption, StoreRetry } from "../store/_retry.ts";
import { appendBatch, type BatchMerge, isFullDisk, type PreparedEntry } from "./_append.ts";
import { FileCaches } from "./_cache.ts";
import { FreshListing } from "./_fresh_listing.ts";
import { FileJournals, FORKS_FOLDER } from "./_journal.ts";
import { moveLegacyJournals } from "./_legacy_journals.ts";
import { LockTemplate } from "./_lock_template.ts";
import { OpenFiles } from "./_open_files.ts";
import { errorCode } from "./_read.ts";
import { SpareFile } from "./_spare_file.ts";

/** The options the core reads (those of `FileTapeStoreOptions`). */
export interface FileStoreCoreOptions {
  durable?: boolean;
  lockTimeoutMs?: number;
  retrySeconds?: number;
}

/** The shared state and write path of one `FileTapeStore`. */
export class FileStoreCore {
  /** The directory holding the tape files. */
  readonly directory: string;
  readonly durable: boolean;
  readonly lockTimeoutMs: number;
  readonly cache: FileCaches = new FileCaches();
  readonly files: OpenFiles = new OpenFiles();
  readonly mutex: KeyedMutex = new KeyedMutex();
  readonly template: LockTemplate;
  readonly spare: SpareFile;
  readonly stop: AbortController = new AbortController();
  readonly retry: StoreRetry;
  readonly journals: FileJournals;
  /** The forks folder's names, one listing shared by callers that ask while another runs. */
  readonly journalNames: FreshListing;
  #ready: Promise<void> | null = null;
  #legacyMoved: Promise<void> | null = null;
  #directorySeen = false;

  constructor(directory: string, options: FileStoreCoreOptions) {
    this.directory = directory;
    this.durable = options.durable ?? true;
    this.lockTimeoutMs = options.lockTimeoutMs ?? 30_000;
    this.template = new LockTemplate(directory);
    this.spare = new SpareFile(directory);
    this.journals = new FileJournals(this.durable);
    this.journalNames = new FreshListing(() => readdir(join(directory, FORKS_FOLDER)));
    this.retry = new StoreRetry({
      kind: "file",
      name: JSON.stringify(directory),
      retrySeconds: retrySecondsOption("FileTapeStore", options.retrySeconds),
      // The write's own error (not a wrapped one): a failed flush is final.
      isTransient: isFullDisk,
      signal: this.stop.signal,
    });
  }

  /** The file of `tape`. */
  pathOf(tape: string): string {
    validateTapeName(tape);
    return join(this.directory, `${tape}.jsonl`);
  }

  /** The lock options of a tape's lock file. */
  lockOptions(tape: string): { what: string; timeoutMs: number; template: LockTemplate } {
    return {
      what: `tape ${JSON.stringify(tape)}`,
      timeoutMs: this.lockTimeoutMs,
      template: this.template,
    };
  }

  /** Rethrows `error` of `action` on `tape` as a BubError naming both (typed errors pass). */
  fail(action: string, tape: string, error: unknown): never {
    if (BubError.isInstance(error) || error instanceof TypeError) throw error;
    throw new BubError(
      "unknown",
      `Cannot ${action} tape ${JSON.stringify(tape)} in ${JSON.stringify(this.directory)}: ${
        error instanceof Error ? error.message : String(error)
      }`,
      { tape, code: errorCode(error) ?? null },
      { cause: error },
    );
  }

  /** Writes a prepared batch to `tape` under its lock (see `_append.ts`). */
  async write(
    tape: string,
    path: string,
    checked: PreparedEntry[],
    merge?: BatchMerge,
    lastId?: number,
  ): Promise<boolean> {
    try {
      await this.ensureDirectory();
    } catch (error) {
      if (isFullDisk(error)) throw error; // retried (see `retrySeconds`)
      this.fail("append entry to", tape, error);
    }
    const target = {
      tape,
      path,
      files: this.files,
      cache: this.cache,
      spare: this.spare,
      durable: this.durable,
      ...(merge ? { merge } : {}),
      ...(lastId === undefined ? {} : { lastId }),
    };
    const lock = { timeoutMs: this.lockTimeoutMs, template: this.template };
    return await appendBatch(
      target,
      checked,
      lock,
      (action, error) => this.fail(action, tape, error),
    );
  }

  /**
   * True when the directory is one (then a tape file `stat` did not find is missing). Once seen it
   * is remembered: a directory removed later holds no tapes, which the `stat` of a tape tells.
   */
  directoryExists(): boolean {
    if (this.#directorySeen) return true;
    try {
      // Searchable too: a tape `existsSync` did not find there is then missing, not unreachable.
      this.#directorySeen =
        (statSync(this.directory, { throwIfNoEntry: false })?.isDirectory() ?? false) &&
        (accessSync(this.directory, constants.X_OK), true);
    } catch {
      this.#directorySeen = false;
    }
    return this.#directorySeen;
  }

  /** Moves the journals an older version left beside their tapes into the forks folder, once. */
  moveLegacyJournals(): Promise<void> {
    this.#legacyMoved ??= moveLegacyJournals(this.directory).catch((error) => {
      this.#legacyMoved = null;
      throw error;
    });
    return this.#legacyMoved;
  }

  /** Creates the directory once (again after a failure). */
  ensureDirectory(): Promise<void> {
    this.#ready ??= mkdir(this.directory, { recursive: true, mode: 0o700 }).then(
      () => {},
      (error) => {
        this.#ready = null;
        throw error;
      },
    );
    return this.#ready;
  }
}
