/**
 * Whether the model runner hands a call the kept context messages themselves instead of copies
 * when nothing but Bub's own code can reach them (see `ModelRunner`, `sharedMessages`). On Bun
 * only: there a long session's copies are most of a call's own work (at 1000 prior turns, 4000
 * objects per call; sharing saved ~0.5 ms CPU per turn of 4.6, a loop of turns with
 * `BENCH_PRIOR=1000`, five runs each), while on V8 the copies die young and sharing made the
 * old generation's collector run more often (Node 161 full collections against 93 in the same
 * run, +1.5–3 ms CPU per turn; Deno +0.6–1.5 ms).
 *
 * @module
 */
import { runtimeKey } from "../_internal/runtime.ts";

let sharing = runtimeKey() === "bun";

/** True when a call's history may be the kept messages themselves. */
export function sharesHistory(): boolean {
  return sharing;
}

/** Turns sharing on or off (tests run both ways on every runtime); returns the previous value. */
export function setSharesHistory(on: boolean): boolean {
  const was = sharing;
  sharing = on;
  return was;
}
