/**
 * A plugin for the crash-resume test (loaded through `plugins:` in config.yml): an `append_id`
 * tool declared `idempotent: true` that appends its call id to a file and, the first time (the
 * file was empty), waits 30 s so that the test can SIGKILL the process while it runs.
 */
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { defineTool, type Tool } from "../../src/tools/tool.ts";

const appendId = defineTool({
  name: "append_id",
  description: "Appends the call id to a file.",
  parameters: {
    type: "object",
    properties: { path: { type: "string" } },
    required: ["path"],
  },
  idempotent: true,
  context: true,
  handler: async ({ path }: { path: string }, context) => {
    const first = !existsSync(path) || readFileSync(path, "utf8") === "";
    appendFileSync(path, `${context.callId}\n`);
    if (first) await sleep(30_000, undefined, { signal: context.signal ?? undefined });
    return `appended ${context.callId}`;
  },
});

const plugin: { name: string; tools: Tool[] } = { name: "idempotent-test-tool", tools: [appendId] };
export default plugin;
