/**
 * Typing a plugin's own turn state without declaration merging (which JSR rejects in published
 * packages): {@link StatefulHooks} swaps `state: TurnState` for the plugin's `S` in every hook
 * argument that carries the turn state. Used by `definePlugin<S>()`.
 *
 * @module
 */
import type { HookName, HookSignatures } from "./hook_specs.ts";
import type { TurnState } from "./turn.ts";

/**
 * `A` with its `state` typed as `S`, when `A` carries the turn state; else `A`.
 *
 * @example
 * ```ts
 * import type { TurnState } from "@bub/core";
 * import type { WithTurnState } from "@bub/core/kernel";
 * interface CounterState extends TurnState {
 *   count: number;
 * }
 * type Args = WithTurnState<{ sessionId: string; state: TurnState }, CounterState>;
 * const args: Args = { sessionId: "cli:local", state: { count: 1 } };
 * ```
 */
export type WithTurnState<A, S extends TurnState> = A extends { state: TurnState }
  ? Omit<A, "state"> & { state: S }
  : A;

/**
 * A hook implementation whose turn-state argument is typed as `S`.
 *
 * @example
 * ```ts
 * import type { TurnState } from "@bub/core";
 * import type { HookSignatures, StatefulHook } from "@bub/core/kernel";
 * interface CounterState extends TurnState {
 *   count: number;
 * }
 * const runModel: StatefulHook<HookSignatures["runModel"], CounterState> = ({ state }) =>
 *   `turn ${state.count}`;
 * ```
 */
export type StatefulHook<F, S extends TurnState> = F extends (args: infer A) => infer R
  ? (args: WithTurnState<A, S>) => R
  : F;

/**
 * The hook implementations of a plugin that reads and writes its own state keys as `S` (an
 * interface extending `TurnState`). A lens the plugin's author vouches for, not a proof: other
 * plugins may write the same keys, and at runtime the state is one open map.
 *
 * @example
 * ```ts
 * import { definePlugin, type TurnState } from "@bub/core";
 * import type { StatefulHooks } from "@bub/core/kernel";
 * interface CounterState extends TurnState {
 *   count: number;
 * }
 * const hooks: StatefulHooks<CounterState> = {
 *   loadState: () => ({ count: 1 }),
 *   runModel: ({ state }) => `turn ${state.count}`,
 * };
 * const plugin = definePlugin<CounterState>({ name: "counter", ...hooks });
 * ```
 */
export type StatefulHooks<S extends TurnState> = {
  [K in HookName]?: StatefulHook<HookSignatures[K], S>;
};
