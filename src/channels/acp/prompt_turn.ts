/**
 * One `session/prompt`: the prompt runs as a turn of the session through the framework (hooks,
 * tools, comma commands) and streams as `session/update`s; then every tool call the turn held for
 * approval is put to the editor as a permission request, and each answer runs as the decision
 * (`,approve` / `,deny`), whose resumed turn streams on in the same prompt. The prompt ends with
 * its stop reason: `cancelled`, `max_turn_requests` when the step budget ran out, `max_tokens`
 * when the model's last answer hit its output limit, `refusal` when the model (or the
 * provider's filter) refused, else `end_turn`.
 *
 * @module
 */
import type { TurnEvent } from "../../kernel/turn_stream.ts";
import type { TapeStore } from "../../tape/store.ts";
import { decisionCommand, pendingRequests, permissionParams } from "./permissions.ts";
import type { PromptMedia } from "./prompt_text.ts";
import { sessionTape } from "./session_list.ts";
import { type AcpUpdate, TurnUpdates } from "./turn_updates.ts";

/** The stop reasons a prompt ends with (the protocol's `StopReason`). */
export type PromptStop = "end_turn" | "cancelled" | "max_turn_requests" | "max_tokens" | "refusal";

/** The stop reason of a turn whose last answer the model ended with `finish` (see `FinalPayload`). */
export function finishStop(finish: string | null): PromptStop {
  if (finish === "length") return "max_tokens";
  if (finish === "content-filter") return "refusal";
  return "end_turn";
}

/** What a prompt needs: the framework, the session, and the editor's side of the connection. */
export interface PromptTurnArgs {
  /** Runs one turn and yields its events (see `KernelFramework.streamInbound`). */
  streamInbound(inbound: unknown, options?: { signal?: AbortSignal }): AsyncIterable<TurnEvent>;
  /** The session id. */
  sessionId: string;
  /** The workspace (tape names, relative paths). */
  workspace: string;
  /** The tape store (the session's pending approvals). */
  store: TapeStore;
  /** The prompt's text and media. */
  content: string;
  /** The prompt's media. */
  media: PromptMedia[];
  /** Aborted when the editor cancels the prompt or closes the session. */
  signal: AbortSignal;
  /** Sends one `session/update`. */
  send(update: AcpUpdate): Promise<void>;
  /** Asks the editor (`session/request_permission`); its `outcome`, or null when it could not. */
  askPermission(params: Record<string, unknown>): Promise<unknown>;
  /** The model's context window in tokens (for `usage_update`), or null when unknown. */
  contextWindow?: number | null;
  /**
   * Called with the prompt's way of showing an editor's terminal in its tool call while the
   * prompt runs; returns the function that ends that (see `AcpBridge.watchTerminals`).
   */
  watchTerminals?(embed: (callId: string, terminalId: string) => Promise<void>): () => void;
}

/** The stop reason of a turn that failed with `error`, or null (a real failure). */
export function stopReasonOf(error: unknown): "max_turn_requests" | null {
  const message = error instanceof Error ? error.message : String(error);
  return /max_steps_reached/.test(message) ? "max_turn_requests" : null;
}

/** Runs the prompt (see the module doc); a failure that is not a stop reason is thrown. */
export async function promptTurn(args: PromptTurnArgs): Promise<PromptStop> {
  const { sessionId, workspace, signal } = args;
  const updates = new TurnUpdates(workspace, args.contextWindow ?? null);
  const chatId = sessionId.startsWith("acp:") ? sessionId.slice(4) : sessionId;
  const stop = (): PromptStop => signal.aborted ? "cancelled" : finishStop(updates.finishReason);
  // A terminal made before its call's tool_call went out waits for it (and is shown in it).
  const waiting = new Map<string, () => void>();
  const unwatch = args.watchTerminals?.(async (callId, terminalId) => {
    const now = updates.terminal(callId, terminalId);
    if (now.length === 0) return await new Promise<void>((done) => waiting.set(callId, done));
    for (const update of now) await args.send(update);
  });
  /** Runs one turn of the session (the prompt, or a decision), streaming its updates. */
  const stream = async (content: string, media: PromptMedia[]) => {
    // The editor's user is the machine's local user, as in `bub chat` (sender "human").
    const inbound = { channel: "acp", chatId, sessionId, sender: "human", content, media };
    for await (const event of args.streamInbound(inbound, { signal })) {
      if (signal.aborted) break;
      for (const update of updates.of(event)) await args.send(update);
      if (event.kind === "tool_start" && event.data.call_id) {
        waiting.get(event.data.call_id)?.();
        waiting.delete(event.data.call_id);
      }
    }
  };
  try {
    await stream(args.content, args.media);
    const asked = new Set<string>();
    while (!signal.aborted) {
      const tape = sessionTape(sessionId, workspace);
      const pending = (await pendingRequests(args.store, tape)).filter((r) => !asked.has(r.id));
      if (pending.length === 0) break;
      for (const request of pending) {
        asked.add(request.id);
        const outcome = await args.askPermission(permissionParams(sessionId, request, workspace));
        const command = decisionCommand(request, outcome);
        // No answer: the request stays pending on the tape (decide it from any channel).
        if (command === null) return stop();
        await stream(command, []);
      }
    }
    return stop();
  } catch (error) {
    if (signal.aborted) return "cancelled";
    const reason = stopReasonOf(error);
    if (reason) return reason;
    throw error;
  } finally {
    unwatch?.();
    for (const done of waiting.values()) done();
  }
}
