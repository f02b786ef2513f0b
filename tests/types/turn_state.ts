/**
 * Type-level fixtures (checked by `deno check tests/`, never run): `TurnState` is an open
 * interface an application extends by declaration merging, `definePlugin<S>()` types a plugin's
 * own state keys, and stream events narrow on `kind`. Each `@ts-expect-error` must stay an error.
 *
 * @module
 */
import type { Plugin, StreamEvent, TurnEvent, TurnState } from "../../mod.ts";
import { definePlugin } from "../../mod.ts";

declare module "@bub/core" {
  interface TurnState {
    /** An application's own key, merged in. */
    "acme.budget"?: number;
  }
}

export function mergedKey(state: TurnState): number {
  const budget: number | undefined = state["acme.budget"];
  // @ts-expect-error a merged key keeps its type
  state["acme.budget"] = "three";
  // Undeclared keys stay open and read as unknown.
  const other: unknown = state["anything.else"];
  void other;
  // @ts-expect-error an undeclared key is unknown, not any
  const wrong: number = state["anything.else"];
  void wrong;
  // Reserved keys are declared.
  const workspace: string | URL | undefined = state._runtime_workspace;
  const session: string | null | undefined = state.session_id;
  void workspace;
  void session;
  return budget ?? 0;
}

interface QuotaState extends TurnState {
  "quota.left"?: number;
  "quota.owner": string;
}

export const quota: Plugin = definePlugin<QuotaState>({
  name: "quota",
  loadState: () => ({ "quota.left": 2 }),
  systemPrompt: ({ state }) => {
    const left: number | undefined = state["quota.left"];
    const owner: string = state["quota.owner"];
    return `${owner}: ${left ?? 0}`;
  },
  saveState: ({ state }) => {
    // @ts-expect-error the plugin's key keeps its type
    state["quota.left"] = "none";
  },
  beforeToolCall: ({ state }) => {
    const owner: string = state["quota.owner"];
    return owner === "" ? { action: "deny", reason: "no owner" } : null;
  },
  // continuePrompt's state is the stream state, untouched by the lens.
  continuePrompt: ({ state }) => (state.error === null ? null : "retry"),
});

// Without a state type, definePlugin still returns the plugin's own type.
const plain = definePlugin({ name: "plain", extra: 1, runModel: () => "ok" });
export const extra: number = plain.extra;

export function narrow(event: StreamEvent | TurnEvent): string {
  // @ts-expect-error data is a union until kind is narrowed
  void event.data.delta;
  switch (event.kind) {
    case "text":
    case "reasoning":
      return event.data.delta;
    case "tool_start":
      return `${event.data.name}(${Object.keys(event.data.arguments).join()})`;
    case "tool_end":
      return `${event.data.ok} ${event.data.duration_ms} ${event.data.error?.message ?? ""}`;
    case "tool_call":
      return event.data.tool_calls.map((call) => call.function.name).join();
    case "step_end":
      return event.data.status;
    case "done":
      return event.data.result.modelOutput;
    default:
      return "";
  }
}
