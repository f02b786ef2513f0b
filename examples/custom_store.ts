/**
 * A custom tape store: keep every session's tape in one SQLite database instead of JSONL files.
 *
 * `provideTapeStore` is resolved once per `running()` scope; returning a generator makes the
 * store a resource: opened when the scope opens, closed when it exits.
 *
 *   deno run -A examples/custom_store.ts
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BubFramework, definePlugin, SqliteTapeStore, Tape } from "../mod.ts";

const home = mkdtempSync(join(tmpdir(), "bub-store-"));
const path = join(home, "tapes.sqlite");

const sqliteTapes = definePlugin({
  name: "sqlite-tapes",
  *provideTapeStore() {
    const store = new SqliteTapeStore(path);
    try {
      yield store;
    } finally {
      void store.close();
    }
  },
  runModel: ({ prompt }) => `stored: ${String(prompt)}`,
});

const bub = new BubFramework({ home, configFile: join(home, "config.yml") });
bub.loadBuiltinHooks();
bub.register(sqliteTapes);
{
  await using _scope = await bub.running();
  await bub.processInbound({ channel: "cli", chatId: "local", content: "hello" });
  const tape = new Tape({ store: bub.getTapeStore<SqliteTapeStore>()! }).sessionTape("cli:local", bub.workspace);
  console.log(`${(await tape.query().all()).length} entries in ${path}`);
}
