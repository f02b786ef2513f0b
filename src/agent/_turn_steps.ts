/**
 * Private: one step of the builtin `Agent`'s turn. A step offers the turn's tools (all, or the
 * allowed ones) with their `<available_tools>` block, joins the system prompt (the host's, the
 * tools', the skills'), takes the steering messages that arrived since the last step, and runs
 * the model over them. The tools view and the joined system prompt are reused while unchanged
 * (the same string each time, so later identity checks are cheap).
 *
 * @module
 */
import type { AgentHost } from "../kernel/agent_host.ts";
import type { Envelope } from "../kernel/envelope.ts";
import type { AsyncStreamEvents } from "../kernel/stream.ts";
import type { Prompt, TurnState } from "../kernel/turn.ts";
import type { Tape } from "../tape/tape.ts";
import { renderToolsPrompt } from "../tools/prompt.ts";
import { modelTools, type Tool } from "../tools/tool.ts";
import type { AgentOptions } from "./agent_options.ts";
import { grantCovers, readApprovals } from "./approvals.ts";
import type { ModelRunner } from "./model_runner.ts";

/** What every step of a turn shares. */
export interface TurnSetup {
  /** The turn's prompt. */
  prompt: Prompt;
  /** The model id. */
  model: string;
  /** The tools the turn may use; null: all. */
  allowedTools: string[] | null;
  /** The skills the turn may use; null: all. */
  allowedSkills: string[] | null;
}

/** The tools block and model tools of a tool list. */
export interface ToolsView {
  /** The `<available_tools>` block ("" when no tool is agent-usable). */
  readonly prompt: string;
  /** The agent-usable tools under their model names. */
  readonly modelTools: Tool[];
}

function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
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

function promptText(prompt: Prompt | null): string {
  if (prompt === null) return "";
  if (typeof prompt === "string") return prompt;
  return prompt.filter((part) => part.type === "text").map((part) => String(part.text ?? "")).join(
    "\n",
  );
}

/** The steps of the agent's turns (one per agent: it keeps the tools view and system prompt). */
export class TurnSteps {
  #host: AgentHost;
  #options: AgentOptions;
  #runner: ModelRunner;
  #blocks = new SystemBlocks();

  /**
   * Creates the object.
   *
   * @param host the host (system prompt, steering prompts)
   * @param options the agent's options (tools, skills prompt)
   * @param runner the model runner
   */
  constructor(host: AgentHost, options: AgentOptions, runner: ModelRunner) {
    this.#host = host;
    this.#options = options;
    this.#runner = runner;
  }

  /** The tools of a run: all registered tools, or the allowed ones. */
  tools(allowedTools: Iterable<string> | null): Tool[] {
    const registry = this.#options.registry;
    if (allowedTools === null) return registry.list();
    const names = new Set(registry.resolveToolNames([...allowedTools]));
    return registry.list().filter((tool) => names.has(tool.name));
  }

  /** The view of a step's tools. */
  view(allowedTools: string[] | null): ToolsView {
    // All tools: the registry's shared list (the same array while the tools are the same).
    const tools = allowedTools === null
      ? this.#options.registry.listShared()
      : this.tools(allowedTools);
    return this.#blocks.toolsView(tools);
  }

  /** Runs one step of `turn` on `tape`: its model call and its tool calls. */
  async run(
    tape: Tape,
    prompt: Prompt | null,
    state: TurnState,
    turn: TurnSetup,
    signal: AbortSignal | undefined,
  ): Promise<AsyncStreamEvents> {
    const { model, allowedTools, allowedSkills } = turn;
    const view = this.view(allowedTools);
    const skills = allowedSkills === null ? null : allowedSkills.map((name) => name.toLowerCase());
    if (skills !== null) state.allowed_skills = skills;
    const text = promptText(prompt);
    const blocks = [
      this.#host.getSystemPrompt({ prompt: text, state }),
      view.prompt,
      this.#options.skillsPrompt?.({ promptText: text, state, allowedSkills: skills }) ?? "",
    ];
    const systemPrompt = this.#blocks.systemPrompt(blocks);
    const steeringMessages = await this.#drainSteering(state);
    return this.#runner.run({
      tape,
      model,
      tools: view.modelTools,
      systemPrompt,
      prompt,
      steeringMessages,
      state,
      signal,
      approve: async (held) => grantCovers((await readApprovals(tape)).grants, held),
    });
  }

  /** The prompts of the steering messages that arrived since the last step. */
  async #drainSteering(state: TurnState): Promise<Prompt[]> {
    const inbox = state._runtime_steering_inbox as
      | { drainMessages(state: TurnState): Promise<Envelope[]> }
      | null
      | undefined;
    if (!inbox) return [];
    const messages = await inbox.drainMessages(state);
    if (messages.length === 0) return [];
    return await Promise.all(messages.map((message) => {
      const sessionId = (message as { sessionId?: unknown; session_id?: unknown }).sessionId ??
        (message as { session_id?: unknown }).session_id;
      return this.#host.buildPrompt(
        message,
        String(sessionId ?? state.session_id ?? ""),
        state,
      );
    }));
  }
}
