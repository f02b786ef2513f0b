/**
 * The gateway process of the soak's gateway row: the builtin framework serving the Telegram
 * channel through `bub gateway`'s own code path (`gatewayCommand`), against the soak's mock model
 * and a fake Bot API, with the bench plugin that renders each turn's model output as a Telegram
 * message (`_telegram_reply.ts`). Prints
 * `bub gateway: serving telegram` once serving; stops when stdin ends.
 *
 * Usage: _soak_gateway_child.ts <home> <model url> <api root> <token> <allowed user ids>
 *
 * @module
 */
import { join } from "node:path";
import process from "node:process";
import { BubFramework } from "../src/builtin/framework.ts";
import { gatewayCommand } from "../src/builtin/cli_channels.ts";
import type { BuiltinRuntime } from "../src/builtin/runtime.ts";
import { telegramReplyPlugin } from "./_telegram_reply.ts";

const [home, url, apiRoot, token, allowed] = process.argv.slice(2) as string[];
const bub = new BubFramework({
  home: home!,
  workspace: home!,
  configFile: join(home!, "config.yml"),
  loadDotenv: false,
  builtin: {
    env: {
      BUB_MODEL: "openai:soak",
      BUB_API_KEY: "sk-soak",
      BUB_API_BASE: url!,
      BUB_TELEGRAM_TOKEN: token!,
      BUB_TELEGRAM_API_ROOT: apiRoot!,
      // Explicit allowlists, so this works whether or not an empty allowlist is refused.
      BUB_TELEGRAM_ALLOW_USERS: allowed!,
      BUB_TELEGRAM_ALLOW_CHATS: allowed!,
      BUB_DEBOUNCE_SECONDS: "0.05",
      BUB_MAX_WAIT_SECONDS: "0.5",
    },
  },
});
bub.loadBuiltinHooks();
bub.register(telegramReplyPlugin);
const runtime = (bub.pluginManager.get("builtin") as { runtime: BuiltinRuntime }).runtime;
const stop = new AbortController();
process.stdin.resume();
process.stdin.on("end", () => stop.abort());
await gatewayCommand(bub, runtime, { enableChannel: ["telegram"], signal: stop.signal }, {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
});
process.exit(0);
