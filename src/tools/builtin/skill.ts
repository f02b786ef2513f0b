/**
 * The `skill` tool (spec/builtin.md §6.7.7; seed-era structured result §14.6): lists the skills
 * of the workspace or loads one skill's rendered body.
 *
 * @module
 */
import { s as z } from "../../_internal/schema.ts";
import type { ConfigLookup } from "../../skills/body.ts";
import { renderSkillBody } from "../../skills/body.ts";
import { discoverSkills } from "../../skills/discovery.ts";
import { defineTool, type Tool } from "../tool.ts";
import { workspaceFromState } from "../../environment/from_state.ts";

/** Where the `skill` tool looks for skills and how it renders them. */
export interface SkillToolOptions {
  /** The user's home directory (global skills). @default os.homedir() */
  home?: string;
  /** Folders of builtin skills. @default the package's builtin skills */
  builtinSkillDirs?: readonly string[];
  /** Resolves `${config.<path>}` in skill bodies. @default every path is unknown */
  configLookup?: ConfigLookup;
}

/** What {@link loadSkill} found: the listing or body `text`, or an `error` shown as `(<error>)`. */
export type SkillResult = { text: string; error?: undefined } | { error: string; text?: undefined };

function casefold(text: string): string {
  return text.toLowerCase().replaceAll("ß", "ss");
}

/**
 * Lists the skills visible from `state` (`name` null or absent) or loads one:
 * `Location: <SKILL.md path>\n---\n<body or (no content)>`. A name outside `state.allowed_skills`
 * or an unknown name gives an `error`.
 */
export function loadSkill(
  name: string | null | undefined,
  state: Readonly<Record<string, unknown>>,
  options: SkillToolOptions = {},
): SkillResult {
  const allowed = state.allowed_skills;
  if (Array.isArray(allowed) && name && !allowed.includes(casefold(name))) {
    return { error: `skill '${name}' is not allowed in this context` };
  }
  const skills = discoverSkills({
    workspace: workspaceFromState(state),
    home: options.home,
    builtinDirs: options.builtinSkillDirs,
  });
  if (name === null || name === undefined) {
    return { text: `Available skills:\n${skills.map((skill) => `- ${skill.name}`).join("\n")}` };
  }
  const skill = skills.find((candidate) => candidate.name === casefold(name));
  if (!skill) return { error: "no such skill" };
  const body = renderSkillBody(skill, { config: options.configLookup });
  return { text: `Location: ${skill.location}\n---\n${body || "(no content)"}` };
}

/** Renders a {@link SkillResult} as the tool text. */
export function renderSkillResult(result: SkillResult): string {
  return result.error === undefined ? result.text : `(${result.error})`;
}

/** The `skill` tool. */
export function skillTool(options: SkillToolOptions = {}): Tool {
  return defineTool({
    name: "skill",
    description: "Load a skill's instructions by name (returns its location and content); " +
      "without a name, list the available skills.",
    parameters: z.object({
      name: z.string().nullable().optional().describe("The skill name; omit to list skills."),
    }),
    context: true,
    handler: ({ name }, ctx) => renderSkillResult(loadSkill(name, ctx.state, options)),
  });
}
