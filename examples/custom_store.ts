/**
 * A custom tape store: keep every session's tape in one SQLite database instead of JSONL files.
 *
 * `provideTapeStore` is resolved once per `running()` scope; returning a generator makes the
 * store a resource: opened when the scope opens, closed when it exits. The turn below runs the
 * builtin agent against the mock model, so the agent's entries land in SQLite.
 *
 *   deno run -A examples/custom_store.ts
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BubFramework, definePlugin, type Plugin, SqliteTapeStore, Tape } from "../mod.ts";
import { demoResponder, MockLlmServer } from "../src/testing/mod.ts";

const home = mkdtempSync(join(tmpdir(), "bub-store-"));
const path = join(home, "tapes.sqlite");

const sqliteTapes: Plugin = definePlugin({
  name: "sqlite-tapes",
  *provideTapeStore() {
    const store = new SqliteTapeStore(path);
    try {
      yield store;
    } finally {
      void store.close();
    }
  },
});

await using model = await MockLlmServer.start({ script: demoResponder });
const bub = new BubFramework({
  home,
  workspace: home,
  configFile: join(home, "config.yml"),
  builtin: { env: { BUB_MODEL: "custom:demo", BUB_API_BASE: model.url, BUB_API_KEY: "demo" } },
});
bub.loadBuiltinHooks();
bub.register(sqliteTapes);
{
  await using _scope = await bub.running();
  const result = await bub.processInbound({ channel: "cli", chatId: "local", content: "hello" }, {
    stream: true,
  });
  console.log(result.modelOutput.split("\n")[0]);
  const store = bub.getTapeStore<SqliteTapeStore>()!;
  const tape = new Tape({ store }).sessionTape("cli:local", bub.workspace);
  console.log(`${(await tape.query().all()).length} entries in ${path}`);
}
