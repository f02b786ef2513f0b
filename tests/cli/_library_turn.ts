/**
 * A program that embeds Bub (library mode, not the `bub` entry): two turns through the builtin
 * agent, whose settings come from this process's environment and `<BUB_HOME>/config.yml`.
 *
 * @module
 */
import process from "node:process";
import { BubFramework } from "../../mod.ts";

const bub = new BubFramework({ workspace: process.cwd() });
bub.loadBuiltinHooks();
await using _scope = await bub.running();
for (const content of ["one", "two"]) {
  const result = await bub.processInbound({ channel: "cli", chatId: "local", content });
  console.log(result.modelOutput);
}
