/**
 * Skill discovery reused across turns while its inputs are unchanged. Each call checks the inputs
 * with one `stat` per skills root and one per entry's `SKILL.md` (a root's mtime changes when an
 * entry is added, removed or renamed; a `SKILL.md` edited in place changes only its own stat), and
 * runs {@link discoverSkills} again only when one of those stamps moved. The package's own builtin
 * skills folder is not checked: it is part of the installed package and does not change while it
 * runs (it is read again whenever another root changed).
 *
 * @module
 */
import { existsSync, type Stats } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { stampOf, statQuiet } from "../_internal/file_stamp.ts";
import {
  defaultBuiltinSkillDirs,
  discoverSkills,
  type DiscoverSkillsOptions,
  LEGACY_SKILLS_DIR,
  listSkillRoot,
  PROJECT_SKILLS_DIR,
} from "./discovery.ts";
import { type Skill, SKILL_FILE_NAME } from "./skill.ts";

/**
 * Discovered skills cached by their inputs' stamps. One instance per runtime; every
 * {@link SkillsCache.discover} call sees a skill created, edited or removed since the last call.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SkillsCache } from "./skills_cache.ts";
 * const cache = new SkillsCache();
 * const options = { workspace: "/nonexistent", home: "/nonexistent", builtinDirs: [] };
 * assert.ok(cache.discover(options) === cache.discover(options));
 * ```
 */
export class SkillsCache {
  /** By roots: the paths checked, their stamps when last discovered, and the skills found. */
  #entries = new Map<string, Snapshot>();
  #limit: number;
  #builtinDirs: readonly string[] | null;
  /** The default roots and cache key by workspace and home (joined once, not per call). */
  #defaultRoots = new Map<string, { roots: string[]; key: string }>();

  /**
   * Creates an empty cache.
   *
   * @param limit the most root sets (workspace/home pairs) kept; the oldest is dropped first
   * @param packageDirs the package's own builtin skills folders (default: the installed
   *   package's), used when a call gives no `builtinDirs`; never re-checked
   */
  constructor(limit = 16, packageDirs?: readonly string[]) {
    this.#limit = limit;
    this.#builtinDirs = packageDirs ?? null;
  }

  /**
   * The skills {@link discoverSkills} would return for `options`; the same array (frozen) as the
   * last call when no root listing and no `SKILL.md` changed.
   */
  discover(options: DiscoverSkillsOptions): readonly Skill[] {
    const home = options.home ?? homedir();
    // The roots whose stamps are checked: the package's folders are left out (see the module).
    let stamped: readonly string[];
    let key: string;
    if (options.roots !== undefined) {
      stamped = options.roots.map((root) => root.path);
      key = options.roots.map((root): string => root.source).concat(stamped).join("\0");
    } else if (options.builtinDirs !== undefined) {
      stamped = [...this.#userRoots(options.workspace, home), ...options.builtinDirs];
      key = stamped.join("\0");
    } else {
      ({ roots: stamped, key } = this.#packageRoots(options.workspace, home));
    }
    const cached = this.#entries.get(key);
    if (cached !== undefined && unchanged(cached)) return cached.skills;
    // Stamps first: a change made while discovering is seen by the next call.
    const snapshot = collect(stamped);
    snapshot.skills = Object.freeze(
      discoverSkills({ ...options, home, builtinDirs: this.#builtin(options) }),
    );
    this.#entries.delete(key);
    this.#entries.set(key, snapshot);
    if (this.#entries.size > this.#limit) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
    return snapshot.skills;
  }

  /** The builtin folders, resolved once (they are part of the package). */
  #builtin(options: DiscoverSkillsOptions): readonly string[] {
    if (options.builtinDirs !== undefined) return options.builtinDirs;
    this.#builtinDirs ??= defaultBuiltinSkillDirs();
    return this.#builtinDirs;
  }

  /** The workspace's, the legacy and the home skills roots (stamped on every call). */
  #userRoots(workspace: string, home: string): string[] {
    return [
      join(workspace, PROJECT_SKILLS_DIR),
      join(workspace, LEGACY_SKILLS_DIR),
      join(home, PROJECT_SKILLS_DIR),
    ];
  }

  /** The user roots (stamped) and the cache key with the package's folders, per workspace/home. */
  #packageRoots(workspace: string, home: string): { roots: string[]; key: string } {
    const id = `${workspace}\0${home}`;
    let found = this.#defaultRoots.get(id);
    if (found === undefined) {
      const roots = this.#userRoots(workspace, home);
      found = { roots, key: [...roots, "package", ...this.#builtin({ workspace })].join("\0") };
      if (this.#defaultRoots.size >= this.#limit) this.#defaultRoots.clear();
      this.#defaultRoots.set(id, found);
    }
    return found;
  }
}

/** The inputs of one discovery: every root and every entry's `SKILL.md`, with their stamps. */
interface Snapshot {
  paths: string[];
  /** Per path: device, inode, size, mtime, ctime (all -1 when missing). */
  stamps: number[];
  skills: readonly Skill[];
}

const FIELDS = 5;

function pushStamp(stamps: number[], stats: Stats | null): void {
  if (stats === null) stamps.push(-1, -1, -1, -1, -1);
  else stamps.push(stats.dev, stats.ino, stats.size, stats.mtimeMs, stats.ctimeMs);
}

function collect(roots: readonly string[]): Snapshot {
  const paths: string[] = [];
  const stamps: number[] = [];
  for (const root of roots) {
    const stats = statQuiet(root);
    paths.push(root);
    pushStamp(stamps, stats);
    if (stats === null || !stats.isDirectory()) continue;
    for (const entry of listSkillRoot(root, stampOf(stats))) {
      const file = join(root, entry, SKILL_FILE_NAME);
      paths.push(file);
      pushStamp(stamps, statQuiet(file));
    }
  }
  return { paths, stamps, skills: [] };
}

/** True when every path of `snapshot` still has its stamp (one `stat` each). */
function unchanged(snapshot: Snapshot): boolean {
  const { paths, stamps } = snapshot;
  for (let i = 0; i < paths.length; i++) {
    const at = i * FIELDS;
    // Still missing: `existsSync` answers a miss several times faster than `stat` on Deno.
    if (stamps[at] === -1) {
      if (existsSync(paths[i]!)) return false;
      continue;
    }
    const stats = statQuiet(paths[i]!);
    if (stats === null) return false;
    if (
      stamps[at] !== stats.dev || stamps[at + 1] !== stats.ino ||
      stamps[at + 2] !== stats.size || stamps[at + 3] !== stats.mtimeMs ||
      stamps[at + 4] !== stats.ctimeMs
    ) return false;
  }
  return true;
}
