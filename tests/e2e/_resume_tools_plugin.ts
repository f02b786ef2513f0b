/**
 * A plugin for the crash-resume tests (loaded through `plugins:` in config.yml): `append_id`
 * (declared `idempotent: true`) and `append_once` (not idempotent) append their call id to a
 * file and, the first time (the file was empty), wait 30 s so that the test can SIGKILL the
 * process while the tool runs.
 */
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { defineTool, type Tool } from "../../src/tools/tool.ts";

function appender(name: string, idempotent: boolean): Tool {
  return defineTool({
    name,
    description: "Appends the call id to a file.",
    parameters: {
      type: "object",
      properties: { path: { type: "string" } },
      required: ["path"],
    },
    idempotent,
    context: true,
    handler: async ({ path }: { path: string }, context) => {
      const first = !existsSync(path) || readFileSync(path, "utf8") === "";
      appendFileSync(path, `${context.callId}\n`);
      if (first) await sleep(30_000, undefined, { signal: context.signal ?? undefined });
      return `appended ${context.callId}`;
    },
  });
}

const plugin: { name: string; tools: Tool[] } = {
  name: "resume-test-tools",
  tools: [appender("append_id", true), appender("append_once", false)],
};
export default plugin;
