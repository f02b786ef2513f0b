/**
 * The builtin system-prompt fragment: a default instruction block followed by the workspace's
 * `AGENTS.md`, and in a sandboxed session what its commands can reach.
 *
 * @module
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { StampCache, stampOf, statQuiet } from "../_internal/file_stamp.ts";
import type { TurnState } from "../kernel/turn.ts";
import { SandboxedEnvironment } from "../environment/sandboxed_environment.ts";
import { sandboxPromptNote } from "../environment/sandbox_profile.ts";

/** The builtin instruction block (three sections, ending with a newline). */
export const DEFAULT_SYSTEM_PROMPT: string = `<general_instruct>
Complete the task by calling the available tools or loading the available skills.
</general_instruct>
<response_instruct>
Before you end a run, decide whether a reply has to reach the user through a channel: when a user
question is pending, when an error or important information should be reported, or when a casual
conversation should go on. Plain direct replies are not delivered on every channel, so send replies
with the skill of the channel the message came from; the message metadata names that channel (for
example $telegram or $discord). Follow that channel's skill.
</response_instruct>
<context_contract>
An overlong context can make model calls fail. Call tape.info to see the token usage of the
conversation, and call tape.handoff with a short summary to start a fresh context when it grows.
</context_contract>
`;

/** `AGENTS.md` texts by path, revalidated by the file's stat (it is read on every model step). */
const AGENTS_MD = new StampCache<string>(64);

/** `AGENTS.md` paths found missing last time (`existsSync` checks a miss faster than `stat`). */
const MISSING = new Set<string>();

/** The trimmed `AGENTS.md` of `workspace`, or `""` when it is missing or unreadable. */
export function readAgentsMd(workspace: string): string {
  const path = join(workspace, "AGENTS.md");
  if (MISSING.has(path) && !existsSync(path)) return "";
  const stats = statQuiet(path);
  if (stats === null) {
    if (MISSING.size >= 64) MISSING.clear();
    MISSING.add(path);
    return "";
  }
  MISSING.delete(path);
  const stamp = stats.isFile() ? stampOf(stats) : null;
  const cached = stamp === null ? undefined : AGENTS_MD.get(path, stamp);
  if (cached !== undefined) return cached;
  let text: string;
  try {
    text = readFileSync(path, "utf8").trim();
  } catch {
    return "";
  }
  if (stamp !== null) AGENTS_MD.set(path, stamp, text);
  return text;
}

/** The fragment of each turn (by its state): later steps reuse it without a `stat`. */
const TURN_FRAGMENTS = new WeakMap<TurnState, { workspace: string; text: string }>();
/** The last fragment built, reused (same string) while `AGENTS.md` reads the same. */
let lastFragment: { agents: string; text: string } | null = null;

/**
 * The builtin `systemPrompt` fragment for a turn state. `AGENTS.md` is checked (one `stat`) on
 * the first step of a turn; later steps of the same turn reuse that fragment.
 */
export function builtinSystemPrompt(state: TurnState): string {
  const workspace = typeof state._runtime_workspace === "string" && state._runtime_workspace
    ? state._runtime_workspace
    : process.cwd();
  const cached = TURN_FRAGMENTS.get(state);
  if (cached !== undefined && cached.workspace === workspace) return cached.text;
  const agents = readAgentsMd(workspace);
  if (lastFragment === null || lastFragment.agents !== agents) {
    lastFragment = { agents, text: `${DEFAULT_SYSTEM_PROMPT}\n\n${agents}` };
  }
  const environment = state._runtime_environment;
  const text = environment instanceof SandboxedEnvironment && environment.sandboxed
    ? `${lastFragment.text}\n\n${sandboxPromptNote(environment.profile)}`
    : lastFragment.text;
  TURN_FRAGMENTS.set(state, { workspace, text });
  return text;
}
