/**
 * A folder's listing shared by callers that ask at about the same time, never older than the
 * call: a caller gets a listing that started after it asked. When many sessions start at once
 * (each session's first turn lists the forks folder for journals a dead process left, see
 * `_store_forks.ts`), the callers that ask while one listing runs share the next one instead of
 * listing the folder once each: 300 first turns at once read it a few times, not 300 times.
 *
 * @module
 */

/** Listings of one folder, shared by concurrent callers. */
export class FreshListing {
  readonly #read: () => Promise<string[]>;
  #running: Promise<readonly string[]> | null = null;
  #next: Promise<readonly string[]> | null = null;

  /** @param read lists the folder (rejects as `readdir` does) */
  constructor(read: () => Promise<string[]>) {
    this.#read = read;
  }

  /**
   * The folder's names, from a listing started after this call: the running one when none runs
   * (a new one then), else the one that starts when the running one ends (it may have begun
   * before this call and missed what changed since), shared by every caller meanwhile.
   */
  names(): Promise<readonly string[]> {
    if (this.#running === null) return this.#start();
    this.#next ??= this.#running.then(() => {}, () => {}).then(() => {
      this.#next = null;
      return this.#start();
    });
    return this.#next;
  }

  #start(): Promise<readonly string[]> {
    const listing: Promise<readonly string[]> = this.#read().then((names) => Object.freeze(names));
    this.#running = listing;
    const done = (): void => {
      if (this.#running === listing) this.#running = null;
    };
    listing.then(done, done);
    return listing;
  }
}
