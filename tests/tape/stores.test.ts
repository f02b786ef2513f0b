import { join } from "node:path";
import { FileTapeStore } from "../../src/tape/file_store.ts";
import { InMemoryTapeStore } from "../../src/tape/memory_store.ts";
import { SqliteTapeStore } from "../../src/tape/sqlite_store.ts";
import { tempDir } from "./_helpers.ts";
import { describeStoreConformance } from "./store_conformance.ts";

describeStoreConformance("InMemoryTapeStore", () => {
  const store = new InMemoryTapeStore();
  return Promise.resolve({ store, cleanup: () => store.close() });
});

describeStoreConformance("FileTapeStore", async () => {
  const { dir, cleanup } = await tempDir();
  const store = new FileTapeStore(join(dir, "tapes"));
  return { store, cleanup: async () => (await store.close(), await cleanup()) };
});

describeStoreConformance("SqliteTapeStore", async () => {
  const { dir, cleanup } = await tempDir();
  const store = new SqliteTapeStore(join(dir, "tapes.db"));
  return { store, cleanup: async () => (await store.close(), await cleanup()) };
});
