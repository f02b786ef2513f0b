/**
 * One gateway instance of the cluster bench: the builtin framework serving the Telegram channel
 * through `bub gateway`'s own code path (`gatewayCommand`), configured by the environment the
 * bench gives it (`BUB_MODEL`, `BUB_API_BASE`, `BUB_TELEGRAM_*`, `BUB_TAPE_STORE`, …), with the
 * bench plugin that renders each turn's model output as a Telegram message (`_telegram_reply.ts`).
 * Prints `bub gateway: serving telegram` once serving; stops when stdin ends or on SIGTERM. Runs on Deno, Node 24 and Bun.
 *
 * Usage: _cluster_gateway.ts <home> <workspace>
 *
 * Every instance of a cluster gets the same workspace (as a deployment does: a session's tapes
 * are named by the workspace, so instances with workspaces of their own would each have their
 * own session tapes, and a takeover would never find the tape of the turn it takes over).
 *
 * @module
 */
import { join } from "node:path";
import process from "node:process";
import { BubFramework } from "../../src/builtin/framework.ts";
import { gatewayCommand } from "../../src/builtin/cli_channels.ts";
import type { BuiltinRuntime } from "../../src/builtin/runtime.ts";
import { configureCliLogging } from "../../src/cli/logging.ts";
import { telegramReplyPlugin } from "./_telegram_reply.ts";

const [home, workspace] = process.argv.slice(2);
if (!home || !workspace) throw new Error("usage: _cluster_gateway.ts <home> <workspace>");
// Logs to stderr as `bub gateway` does (warnings and up unless `BUB_LOG_LEVEL` says otherwise).
configureCliLogging();
const bub = new BubFramework({
  home,
  workspace,
  configFile: join(home, "config.yml"),
  loadDotenv: false,
});
bub.loadBuiltinHooks();
bub.register(telegramReplyPlugin);
const runtime = (bub.pluginManager.get("builtin") as { runtime: BuiltinRuntime }).runtime;
const stop = new AbortController();
process.stdin.resume();
process.stdin.on("end", () => stop.abort());
process.once("SIGTERM", () => stop.abort());
await gatewayCommand(bub, runtime, { enableChannel: ["telegram"], signal: stop.signal }, {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
});
process.exit(0);
