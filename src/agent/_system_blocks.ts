/**
 * The per-step pieces of the agent's request that depend only on the tool set and the prompt
 * blocks, reused while those are unchanged: the `<available_tools>` block, the model tools and the
 * joined system prompt (the same string each time, so later identity checks are cheap).
 *
 * @module
 */
import { renderToolsPrompt } from "../tools/prompt.ts";
import { modelTools, type Tool } from "../tools/tool.ts";

function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The tools block and model tools of a tool list. */
export interface ToolsView {
  /** The `<available_tools>` block ("" when no tool is agent-usable). */
  readonly prompt: string;
  /** The agent-usable tools under their model names. */
  readonly modelTools: Tool[];
}

/** Caches of the last tool list's view and the last joined system prompt. */
export class SystemBlocks {
  #tools: readonly Tool[] | null = null;
  #view: ToolsView | null = null;
  #blocks: readonly string[] | null = null;
  #system = "";

  /** The view of `tools`; the previous one when the list holds the same tools in order. */
  toolsView(tools: readonly Tool[]): ToolsView {
    if (this.#view !== null && this.#tools !== null && sameItems(this.#tools, tools)) {
      return this.#view;
    }
    const view = {
      prompt: renderToolsPrompt(tools),
      modelTools: modelTools(tools.filter((tool) => tool.agentUse)),
    };
    this.#tools = tools;
    this.#view = view;
    return view;
  }

  /** The non-empty `blocks` joined by blank lines; the previous string when they are the same. */
  systemPrompt(blocks: readonly string[]): string {
    if (this.#blocks !== null && sameItems(this.#blocks, blocks)) return this.#system;
    this.#blocks = blocks;
    this.#system = blocks.filter((block) => block).join("\n\n");
    return this.#system;
  }
}
