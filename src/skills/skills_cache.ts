/**
 * Skill discovery reused across turns while its inputs are unchanged. Each call checks the inputs
 * with one `stat` per skills root and one per entry's `SKILL.md` (a root's mtime changes when an
 * entry is added, removed or renamed; a `SKILL.md` edited in place changes only its own stat), and
 * runs {@link discoverSkills} again only when one of those stamps moved.
 *
 * @module
 */
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

/** The stamp of a path: its stat stamp, or `-` when it is missing or unreadable. */
function stampPath(path: string): string {
  const stats = statQuiet(path);
  return stats === null ? "-" : stampOf(stats);
}

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
  /** By workspace and home: the stamps of the last discovery and its skills. */
  #entries = new Map<string, { stamps: string; skills: readonly Skill[] }>();
  #limit: number;
  #builtinDirs: readonly string[] | null = null;

  /**
   * Creates an empty cache.
   *
   * @param limit the most workspace/home pairs kept; the oldest is dropped first
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
    const key = `${options.workspace}\0${home}`;
    const stamps = this.#stamps(options, home);
    const cached = this.#entries.get(key);
    if (cached !== undefined && cached.stamps === stamps) return cached.skills;
    const skills = Object.freeze(
      discoverSkills({ ...options, home, builtinDirs: this.#builtin(options) }),
    );
    this.#entries.delete(key);
    this.#entries.set(key, { stamps, skills });
    if (this.#entries.size > this.#limit) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
    return skills;
  }

  /** The builtin folders, resolved once (they are part of the package). */
  #builtin(options: DiscoverSkillsOptions): readonly string[] {
    if (options.builtinDirs !== undefined) return options.builtinDirs;
    this.#builtinDirs ??= defaultBuiltinSkillDirs();
    return this.#builtinDirs;
  }

  /** One string holding every input's stamp, in scan order. */
  #stamps(options: DiscoverSkillsOptions, home: string): string {
    const roots = options.roots?.map((root) => root.path) ?? [
      join(options.workspace, PROJECT_SKILLS_DIR),
      join(options.workspace, LEGACY_SKILLS_DIR),
      join(home, PROJECT_SKILLS_DIR),
      ...this.#builtin(options),
    ];
    const parts: string[] = options.roots?.map((root) => root.source) ?? [];
    for (const root of roots) {
      const stats = statQuiet(root);
      if (stats === null || !stats.isDirectory()) {
        parts.push(root, "-");
        continue;
      }
      const stamp = stampOf(stats);
      parts.push(root, stamp);
      for (const entry of listSkillRoot(root, stamp)) {
        parts.push(entry, stampPath(join(root, entry, SKILL_FILE_NAME)));
      }
    }
    return parts.join("\0");
  }
}
