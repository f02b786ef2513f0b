/**
 * Skill discovery reused across turns while its inputs are unchanged. Each call checks the inputs
 * with one `stat` per skills root and one per entry's `SKILL.md` (a root's mtime changes when an
 * entry is added, removed or renamed; a `SKILL.md` edited in place changes only its own stat), and
 * runs {@link discoverSkills} again only when one of those stamps moved.
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
 * import { SkillsCache } from "./skills_cache.ts";
 * const cache = new SkillsCache();
 * const options = { workspace: "/nonexistent", home: "/nonexistent", builtinDirs: [] };
 * console.assert(cache.discover(options) === cache.discover(options));
 * ```
 */
export class SkillsCache {
  /** By roots: the paths checked, their stamps when last discovered, and the skills found. */
  #entries = new Map<string, Snapshot>();
  #limit: number;
  #builtinDirs: readonly string[] | null = null;

  /**
   * Creates an empty cache.
   *
   * @param limit the most root sets (workspace/home pairs) kept; the oldest is dropped first
   */
  constructor(limit = 16) {
    this.#limit = limit;
  }

  /**
   * The skills {@link discoverSkills} would return for `options`; the same array (frozen) as the
   * last call when no root listing and no `SKILL.md` changed.
   */
  discover(options: DiscoverSkillsOptions): readonly Skill[] {
    const home = options.home ?? homedir();
    const roots = options.roots?.map((root) => root.path) ?? [
      join(options.workspace, PROJECT_SKILLS_DIR),
      join(options.workspace, LEGACY_SKILLS_DIR),
      join(home, PROJECT_SKILLS_DIR),
      ...this.#builtin(options),
    ];
    const key = (options.roots?.map((root): string => root.source) ?? []).concat(roots).join("\0");
    const cached = this.#entries.get(key);
    if (cached !== undefined && unchanged(cached)) return cached.skills;
    // Stamps first: a change made while discovering is seen by the next call.
    const snapshot = collect(roots);
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
