import assert from "node:assert/strict";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { BubFramework } from "../../src/builtin/framework.ts";
import { loadTapeStoreSettings } from "../../src/builtin/settings.ts";
import { parseTapeStoreChoice } from "../../src/builtin/tape_store_setting.ts";
import { BubError } from "../../src/kernel/errors.ts";
import { FileTapeStore } from "../../src/tape/file_store.ts";
import { InMemoryTapeStore } from "../../src/tape/memory_store.ts";
import { sessionTapeName } from "../../src/tape/naming.ts";
import { PostgresTapeStore } from "../../src/tape/postgres_store.ts";
import { SqliteTapeStore } from "../../src/tape/sqlite_store.ts";
import { mockReply } from "../../src/testing/mod.ts";
import { turnFixture } from "../agent/_turn_fixture.ts";
import { postgresUrl, withAdmin } from "../tape/_postgres.ts";

/** The store a builtin framework provides with `BUB_TAPE_STORE=value` (or none). */
async function storeFor(
  value: string | undefined,
  check: (store: unknown, home: string) => Promise<void> | void,
): Promise<void> {
  const home = realpathSync(mkdtempSync(join(tmpdir(), "bub-tape-store-")));
  try {
    const bub = new BubFramework({
      home,
      configFile: join(home, "config.yml"),
      loadDotenv: false,
      builtin: { env: value === undefined ? {} : { BUB_TAPE_STORE: value } },
    });
    bub.loadBuiltinHooks();
    await using _scope = await bub.running();
    await check(bub.getTapeStore(), home);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

test("tape_store values: file, memory, sqlite:<path>, postgres:// and postgresql:// URLs", () => {
  assert.deepEqual(parseTapeStoreChoice("file"), { kind: "file" });
  assert.deepEqual(parseTapeStoreChoice(" memory "), { kind: "memory" });
  assert.deepEqual(parseTapeStoreChoice("sqlite:~/t.db"), { kind: "sqlite", path: "~/t.db" });
  assert.deepEqual(parseTapeStoreChoice("postgresql://u@h/db"), {
    kind: "postgres",
    url: "postgresql://u@h/db",
  });
  for (const bad of ["", "files", "sqlite:", "mysql://h/db", "postgres://", "postgres", 3, null]) {
    assert.equal(parseTapeStoreChoice(bad), null, JSON.stringify(bad));
  }
});

test("tape_store defaults to file; BUB_TAPE_STORE wins over config.yml", () => {
  assert.equal(loadTapeStoreSettings().tape_store, "file");
  assert.equal(loadTapeStoreSettings({ config: { tape_store: "memory" } }).tape_store, "memory");
  assert.equal(
    loadTapeStoreSettings({
      env: { BUB_TAPE_STORE: "sqlite:x.db" },
      config: { tape_store: "memory" },
    }).tape_store,
    "sqlite:x.db",
  );
});

test("tape_store_retry_seconds: default 300, BUB_TAPE_STORE_RETRY_SECONDS, never negative", () => {
  assert.equal(loadTapeStoreSettings().tape_store_retry_seconds, 300);
  assert.equal(
    loadTapeStoreSettings({ config: { tape_store_retry_seconds: 0 } }).tape_store_retry_seconds,
    0,
  );
  assert.equal(
    loadTapeStoreSettings({ env: { BUB_TAPE_STORE_RETRY_SECONDS: "2.5" } })
      .tape_store_retry_seconds,
    2.5,
  );
  assert.throws(
    () => loadTapeStoreSettings({ env: { BUB_TAPE_STORE_RETRY_SECONDS: "-1" } }),
    { kind: "config", message: /tape_store_retry_seconds.*(from BUB_TAPE_STORE_RETRY_SECONDS)/ },
  );
});

test("a bad tape_store is a config BubError naming the setting, the value and its source", () => {
  assert.throws(
    () => loadTapeStoreSettings({ env: { BUB_TAPE_STORE: "mysql://h/db" } }),
    (error: unknown) => {
      assert.ok(BubError.isInstance(error), String(error));
      assert.equal(error.kind, "config");
      assert.equal(
        error.message,
        'tape_store must be file, memory, sqlite:<path>, or a postgres:// or postgresql:// URL, got "mysql://h/db" (from BUB_TAPE_STORE)',
      );
      return true;
    },
  );
  assert.throws(() => loadTapeStoreSettings({ config: { tape_store: 42 } }), {
    kind: "config",
    message: "tape_store must be a string, got 42 (from config key tape_store)",
  });
});

test("the builtin plugin provides the store tape_store names", async () => {
  await storeFor(undefined, (store, home) => {
    assert.ok(store instanceof FileTapeStore);
    assert.equal(store.directory, join(home, "tapes"));
  });
  await storeFor("memory", (store) => assert.ok(store instanceof InMemoryTapeStore));
  await storeFor("sqlite:tapes.db", async (store, home) => {
    assert.ok(store instanceof SqliteTapeStore);
    assert.equal(store.path, join(home, "tapes.db"));
    assert.deepEqual(await store.listTapes(), []);
  });
  const abs = join(realpathSync(tmpdir()), `bub-abs-${crypto.randomUUID()}.db`);
  try {
    await storeFor(`sqlite:${abs}`, (store) => {
      assert.ok(store instanceof SqliteTapeStore);
      assert.equal(store.path, abs);
    });
  } finally {
    for (const suffix of ["", "-wal", "-shm"]) rmSync(abs + suffix, { force: true });
  }
  await storeFor("postgres://bub:pw@127.0.0.1:1/bub", (store) => {
    assert.ok(store instanceof PostgresTapeStore);
    assert.equal(store.url, "postgres://bub:***@127.0.0.1:1/bub");
  });
});

test("a bad tape_store stops running() with the setting's error", async () => {
  await assert.rejects(storeFor("sqlite:", () => {}), {
    kind: "config",
    message:
      /^tape_store must be file, memory, sqlite:<path>.*, got "sqlite:" \(from BUB_TAPE_STORE\)/,
  });
});

const url = postgresUrl("tape_store: postgres");
if (url) {
  test("tape_store: postgres:// — a turn's entries land in PostgreSQL", async () => {
    await using fixture = await turnFixture({
      script: [mockReply.text("hello from the model")],
      env: { BUB_TAPE_STORE: url },
    });
    assert.ok(fixture.bub.getTapeStore() instanceof PostgresTapeStore);
    await fixture.turn("hello postgres");
    const entries = await fixture.entries();
    const user = entries.find((e) => e.kind === "message" && e.payload.role === "user");
    assert.equal(user?.payload.content, "hello postgres");
    const tape = sessionTapeName("cli:local", fixture.home);
    const rows = await withAdmin(
      url,
      (sql) =>
        sql.unsafe(
          "SELECT count(*)::int AS n, max(id)::int AS last FROM bub_tape_entries WHERE tape = $1",
          [
            tape,
          ],
        ),
    );
    assert.equal(rows[0]?.n, entries.length);
    assert.equal(rows[0]?.last, entries.length);
  });
}
