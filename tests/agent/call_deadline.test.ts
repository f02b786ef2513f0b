/**
 * `CallDeadline`, the two limits of one model call served by one timer: the overall limit counts
 * from the start, the stall limit from the last activity (and not before the first), whichever is
 * nearer fires first, and a disposed deadline never fires.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { CallDeadline } from "../../src/agent/_call_deadline.ts";
import { BubError } from "../../src/kernel/errors.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `deadline` failed (at most `ms`), touching it every `touchEvery` ms if given. */
async function failureWithin(
  deadline: CallDeadline,
  ms: number,
  touchEvery?: number,
): Promise<BubError | null> {
  const started = performance.now();
  while (deadline.failure === null && performance.now() - started < ms) {
    await sleep(touchEvery ?? 5);
    if (touchEvery !== undefined) deadline.touch();
  }
  return deadline.failure;
}

test("the overall limit alone ends the call with a temporary error naming its seconds", async () => {
  using deadline = new CallDeadline({ timeoutSeconds: 0.05, stallSeconds: null });
  const failure = await failureWithin(deadline, 2000);
  assert.ok(failure !== null && BubError.isInstance(failure));
  assert.equal(failure.kind, "temporary");
  assert.equal(failure.message, "Model call timed out after 0.05 seconds.");
  assert.equal(deadline.signal?.aborted, true);
  assert.equal(deadline.signal?.reason, failure);
});

test("the stall clock starts at the first activity: quiet before it is no stall", async () => {
  using deadline = new CallDeadline({ timeoutSeconds: null, stallSeconds: 0.04 });
  await sleep(120);
  assert.equal(deadline.failure, null, "no activity yet: the stall clock has not started");
  deadline.touch();
  const failure = await failureWithin(deadline, 2000);
  assert.equal(
    failure?.message,
    "Model stream stalled: no data from the provider for 0.04 seconds.",
  );
});

test("activity keeps a stall away; the overall limit still ends a call that keeps talking", async () => {
  using deadline = new CallDeadline({ timeoutSeconds: 0.3, stallSeconds: 0.06 });
  deadline.touch();
  const failure = await failureWithin(deadline, 3000, 10);
  assert.equal(failure?.message, "Model call timed out after 0.3 seconds.");
});

test("a stall shorter than the overall limit fires first", async () => {
  using deadline = new CallDeadline({ timeoutSeconds: 600, stallSeconds: 0.05 });
  deadline.touch();
  const failure = await failureWithin(deadline, 2000);
  assert.match(failure?.message ?? "", /^Model stream stalled/);
});

test("a disposed deadline never fires and leaves the caller's signal alone", async () => {
  const caller = new AbortController();
  const deadline = new CallDeadline({
    timeoutSeconds: 0.03,
    stallSeconds: 0.03,
    signal: caller.signal,
  });
  deadline.touch();
  deadline[Symbol.dispose]();
  await sleep(100);
  assert.equal(deadline.failure, null);
  assert.equal(caller.signal.aborted, false);
});

test("without limits the caller's signal is the call's signal", () => {
  const caller = new AbortController();
  using deadline = new CallDeadline({
    timeoutSeconds: null,
    stallSeconds: null,
    signal: caller.signal,
  });
  assert.equal(deadline.signal, caller.signal);
});
