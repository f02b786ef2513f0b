/**
 * The smallest Bub: a framework with the builtin plugin and an echo plugin that answers one line.
 *
 * Run: `deno run -A examples/echo.ts "hello"` (or `node examples/echo.ts hello` on Node 24).
 */
import process from "node:process";
import { BubFramework, contentOf, definePlugin } from "../mod.ts";

const echo = definePlugin({
  name: "echo",
  buildPrompt: ({ message }) => `[echo] ${contentOf(message)}`,
  runModel: ({ prompt }) => String(prompt),
});

const bub = new BubFramework();
bub.loadBuiltinHooks();
bub.register(echo);

await using _scope = await bub.running();
const text = process.argv.slice(2).join(" ") || "hello from Bub";
const result = await bub.processInbound({ channel: "cli", chatId: "local", content: text });
for (const outbound of result.outbounds) console.log(contentOf(outbound));
