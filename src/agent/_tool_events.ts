/**
 * Private: runs one step's tools and yields their `tool_start` / `tool_end` events while they
 * run, so a streamed turn shows each tool call as it happens.
 *
 * @module
 */
import type { StreamEvent } from "../kernel/stream_events.ts";
import type {
  ExecuteToolsOptions,
  ToolExecution,
  ToolExecutor,
  ToolInvocation,
} from "../tools/executor.ts";

/**
 * Executes `invocations` on `executor`, yielding the tool events as they happen, and returns
 * the execution. When the consumer stops early, the execution keeps its own cancellation (the
 * step's signal) and its outcome is observed, so nothing rejects unhandled.
 */
export async function* executeWithEvents(
  executor: ToolExecutor,
  invocations: readonly ToolInvocation[],
  options: ExecuteToolsOptions,
): AsyncGenerator<StreamEvent, ToolExecution, undefined> {
  const queue: StreamEvent[] = [];
  let wake: (() => void) | null = null;
  const push = (event: StreamEvent): void => {
    queue.push(event);
    wake?.();
    wake = null;
  };
  let settled = false;
  const execution = executor.execute(invocations, {
    ...options,
    observer: {
      start: (data) => push({ kind: "tool_start", data }),
      end: (data) => push({ kind: "tool_end", data }),
    },
  });
  const done = execution.then(
    () => {},
    () => {},
  ).finally(() => {
    settled = true;
    wake?.();
    wake = null;
  });
  while (true) {
    if (queue.length > 0) {
      yield queue.shift()!;
      continue;
    }
    if (settled) break;
    await new Promise<void>((resolve) => (wake = resolve));
  }
  await done;
  return await execution;
}
