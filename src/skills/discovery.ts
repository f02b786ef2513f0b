/**
 * Skill discovery over the project, user and builtin roots, first name wins.
 *
 * @module
 */
import { readdirSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { getLogger } from "../_internal/log.ts";
import { StampCache, stampOf, statQuiet } from "../_internal/file_stamp.ts";
import { BubError } from "../kernel/errors.ts";
import { readSkill, type Skill, type SkillSource } from "./skill.ts";

/**
 * The project and user skills folder, relative to the workspace or home directory.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PROJECT_SKILLS_DIR } from "@bub/core/skills";
 * assert.equal(PROJECT_SKILLS_DIR, ".agents/skills"); // under the workspace
 * ```
 */
export const PROJECT_SKILLS_DIR = ".agents/skills";
/**
 * The deprecated project skills folder, still scanned after {@link PROJECT_SKILLS_DIR}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LEGACY_SKILLS_DIR } from "@bub/core/skills";
 * assert.equal(LEGACY_SKILLS_DIR, ".agent/skills"); // still read, after .agents/skills
 * ```
 */
export const LEGACY_SKILLS_DIR = ".agent/skills";

/**
 * One folder whose subdirectories are skills.
 *
 * @example
 * ```ts
 * import { discoverSkills, type SkillRoot } from "@bub/core/skills";
 * const roots: SkillRoot[] = [{ path: "/nonexistent/skills", source: "project" }];
 * const skills = discoverSkills({ workspace: ".", roots });
 * ```
 */
export interface SkillRoot {
  /** The folder. */
  readonly path: string;
  /** The source recorded on skills found there. */
  readonly source: SkillSource;
}

/**
 * Options of {@link skillRoots} and {@link discoverSkills}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { skillRoots, type SkillRootsOptions } from "@bub/core/skills";
 * const options: SkillRootsOptions = { workspace: "/srv/app", home: "/home/ada", builtinDirs: [] };
 * assert.equal(skillRoots(options)[0]?.source, "project");
 * ```
 */
export interface SkillRootsOptions {
  /** The workspace whose `.agents/skills` (and legacy `.agent/skills`) hold project skills. */
  workspace: string;
  /** The user's home directory (not `BUB_HOME`). @default os.homedir() */
  home?: string;
  /**
   * Folders of builtin skills, scanned last. @default [builtinSkillsDir()] (none when the
   * package was loaded from a remote URL)
   */
  builtinDirs?: readonly string[];
  /** Receives the legacy-folder deprecation warning. @default a warning on the ["bub", "skills"] logger */
  onWarning?: (message: string) => void;
}

/**
 * Options of {@link discoverSkills}.
 *
 * @example
 * ```ts
 * import { discoverSkills, type DiscoverSkillsOptions } from "@bub/core/skills";
 * const warnings: string[] = [];
 * const options: DiscoverSkillsOptions = { workspace: ".", builtinDirs: [], onWarning: (w) => void warnings.push(w) };
 * const skills = discoverSkills(options);
 * ```
 */
export interface DiscoverSkillsOptions extends SkillRootsOptions {
  /** Scan exactly these roots, in order, instead of the ones {@link skillRoots} computes. */
  roots?: readonly SkillRoot[];
}

function isDirectory(path: string): boolean {
  return statQuiet(path)?.isDirectory() ?? false;
}

/** Sorted listings of skill roots, revalidated by the root's stat (entries added or removed). */
const LISTINGS = new StampCache<readonly string[]>(128);

/** This module's URL; empty where a bundler left `import.meta` empty (CommonJS output). */
function moduleUrl(): string {
  return (import.meta as { url?: string }).url ?? "";
}

/** True when this module was loaded from a file (not from a remote URL or a CommonJS bundle). */
function onDisk(): boolean {
  return moduleUrl().startsWith("file:");
}

/**
 * The folder holding Bub's own skills (`src/skills/builtin/`), resolved from this module's URL so
 * it works from the sources and from the npm build.
 *
 * @throws {BubError} (`config`) when the package was loaded from a remote URL (e.g. JSR): its
 *   skills are not on disk then, and discovery leaves the builtin root out
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { existsSync } from "node:fs";
 * import { builtinSkillsDir } from "@bub/core/skills";
 * assert.ok(existsSync(builtinSkillsDir()));
 * ```
 */
export function builtinSkillsDir(): string {
  if (!onDisk()) {
    throw new BubError(
      "config",
      `Cannot locate the builtin skills: @bub/core was not loaded from disk (${
        moduleUrl() || "no module URL"
      })`,
    );
  }
  const beside = fileURLToPath(new URL("./builtin/", import.meta.url));
  if (isDirectory(beside)) return beside;
  // The bundled npm build runs from dist/ while the skills ship under esm/src/skills/builtin/:
  // walk up to the package root.
  for (
    let dir = dirname(fileURLToPath(import.meta.url));
    dir !== dirname(dir);
    dir = dirname(dir)
  ) {
    const candidate = join(dir, "esm", "src", "skills", "builtin");
    if (isDirectory(candidate)) return candidate;
  }
  return beside;
}

/**
 * The default builtin skill folders: `[builtinSkillsDir()]`, or none when the package was loaded
 * from a remote URL (JSR) and its skills are not on disk.
 */
export function defaultBuiltinSkillDirs(): string[] {
  return onDisk() ? [builtinSkillsDir()] : [];
}

/**
 * The roots to scan, in precedence order: `<workspace>/.agents/skills`, then the legacy
 * `<workspace>/.agent/skills` when it exists (with a deprecation warning), then
 * `<home>/.agents/skills`, then the builtin folders.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { skillRoots } from "./discovery.ts";
 * const roots = skillRoots({ workspace: "/w", home: "/h", builtinDirs: [] });
 * assert.ok(roots[0]?.path === "/w/.agents/skills" && roots[1]?.source === "global");
 * ```
 */
export function skillRoots(options: SkillRootsOptions): SkillRoot[] {
  const roots: SkillRoot[] = [{
    path: join(options.workspace, PROJECT_SKILLS_DIR),
    source: "project",
  }];
  const legacy = join(options.workspace, LEGACY_SKILLS_DIR);
  if (isDirectory(legacy)) {
    const message =
      `Found legacy skills directory at '${legacy}'. Please move it to '${PROJECT_SKILLS_DIR}' to avoid this warning in the future.`;
    if (options.onWarning) options.onWarning(message);
    else getLogger(["bub", "skills"]).warn(message);
    roots.push({ path: legacy, source: "project" });
  }
  roots.push({ path: join(options.home ?? homedir(), PROJECT_SKILLS_DIR), source: "global" });
  for (const path of options.builtinDirs ?? defaultBuiltinSkillDirs()) {
    roots.push({ path, source: "builtin" });
  }
  return roots;
}

/**
 * The sorted entry names of the skills root `path` whose stat stamp is `stamp`, reused while the
 * stamp is unchanged; `[]` when it cannot be listed.
 */
export function listSkillRoot(path: string, stamp: string): readonly string[] {
  const cached = LISTINGS.get(path, stamp);
  if (cached !== undefined) return cached;
  let names: string[];
  try {
    names = readdirSync(path).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  } catch {
    return [];
  }
  LISTINGS.set(path, stamp, names);
  return names;
}

/**
 * Discovers every valid skill. Roots are scanned in order and each root's subdirectories in sorted
 * order; the first skill with a given casefolded name wins; invalid skills are skipped silently.
 * The result is sorted by casefolded name. Listings and parsed `SKILL.md` files are reused while
 * their `stat` is unchanged, so every edit is seen by the next call.
 *
 * @example Discover the workspace's skills
 * ```ts
 * import assert from "node:assert/strict";
 * import { discoverSkills } from "./discovery.ts";
 * const skills = discoverSkills({ workspace: "/nonexistent", home: "/nonexistent", builtinDirs: [] });
 * assert.ok(skills.length === 0);
 * ```
 */
export function discoverSkills(options: DiscoverSkillsOptions): Skill[] {
  const byName = new Map<string, Skill>();
  for (const root of options.roots ?? skillRoots(options)) {
    const stats = statQuiet(root.path);
    if (stats === null || !stats.isDirectory()) continue;
    for (const entry of listSkillRoot(root.path, stampOf(stats))) {
      const directory = join(root.path, entry);
      if (!isDirectory(directory)) continue;
      const skill = readSkill(directory, root.source);
      if (skill === null) continue;
      const key = skill.name.toLowerCase();
      if (!byName.has(key)) byName.set(key, skill);
    }
  }
  return [...byName.values()].sort((a, b) => {
    const x = a.name.toLowerCase();
    const y = b.name.toLowerCase();
    return x < y ? -1 : x > y ? 1 : 0;
  });
}
