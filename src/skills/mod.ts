/**
 * Skills: `SKILL.md` discovery, validation, frontmatter, body rendering and the skills prompt.
 *
 * @example The skills a workspace sees
 * ```ts
 * import { discoverSkills, renderSkillsPrompt } from "@bub/core/skills";
 * const skills = discoverSkills({ workspace: "." }); // project, global and builtin skills
 * console.log(renderSkillsPrompt(skills));
 * ```
 *
 * @module
 */
export type { ConfigLookup } from "./body.ts";
export {
  currentRuntimeCommand,
  renderSkillBody,
  type RenderSkillOptions,
  renderSkillText,
} from "./body.ts";
export {
  builtinSkillsDir,
  discoverSkills,
  type DiscoverSkillsOptions,
  LEGACY_SKILLS_DIR,
  PROJECT_SKILLS_DIR,
  type SkillRoot,
  skillRoots,
  type SkillRootsOptions,
} from "./discovery.ts";
export { parseFrontmatter, stripFrontmatter } from "./frontmatter.ts";
export {
  filterAllowedSkills,
  renderSkillsPrompt,
  skillReferences,
  skillsPromptFor,
  type SkillsPromptForOptions,
  type SkillsPromptOptions,
} from "./prompt.ts";
export {
  MAX_SKILL_DESCRIPTION_LENGTH,
  MAX_SKILL_NAME_LENGTH,
  readSkill,
  type Skill,
  SKILL_FILE_NAME,
  SKILL_NAME_PATTERN,
  skillFrontmatterProblem,
  type SkillSource,
} from "./skill.ts";
