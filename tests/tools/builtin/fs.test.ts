import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, readdir, readFile, realpath, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fsEditTool, fsReadTool, fsWriteTool, splitLines } from "../../../src/tools/builtin/fs.ts";
import { tempWorkspace, toolContext } from "./_helpers.ts";

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

describe("fs.read", () => {
  test("honours the line offset and limit and joins lines with \\n", async (t) => {
    const ws = await tempWorkspace(t);
    await writeFile(join(ws, "f.txt"), "l0\r\nl1\nl2\rl3\u2028l4\n");
    const ctx = toolContext({ _runtime_workspace: ws });
    const read = fsReadTool();
    assert.equal(await read.run({ path: "f.txt" }, ctx), "l0\nl1\nl2\nl3\nl4");
    assert.equal(await read.run({ path: "f.txt", offset: 1, limit: 2 }, ctx), "l1\nl2");
    assert.equal(await read.run({ path: "f.txt", offset: "3", limit: "10" }, ctx), "l3\nl4");
    assert.equal(await read.run({ path: "f.txt", offset: 99 }, ctx), "");
    assert.equal(await read.run({ path: "f.txt", offset: -5, limit: 1 }, ctx), "l0");
    assert.equal(await read.run({ path: join(ws, "f.txt"), limit: 0 }, ctx), "");
  });

  test("splits lines like Python's str.splitlines", () => {
    assert.deepEqual(splitLines(""), []);
    assert.deepEqual(splitLines("a\n\n"), ["a", ""]);
    assert.deepEqual(splitLines("a\r\n\rb"), ["a", "", "b"]);
    assert.deepEqual(splitLines("a\x0bb\x0cc\x1cd\x85e\u2029f"), ["a", "b", "c", "d", "e", "f"]);
  });

  test("a binary file fails with a clear error", async (t) => {
    const ws = await tempWorkspace(t);
    await writeFile(join(ws, "img.bin"), new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 13]));
    await writeFile(join(ws, "latin.bin"), new Uint8Array(Array.from({ length: 64 }, () => 0xe9)));
    const ctx = toolContext({ _runtime_workspace: ws });
    await assert.rejects(fsReadTool().run({ path: "img.bin" }, ctx), (error) => {
      assert.match(messageOf(error), /img\.bin: it is a binary file \(contains NUL bytes\)/);
      return true;
    });
    await assert.rejects(fsReadTool().run({ path: "latin.bin" }, ctx), /is not valid UTF-8 text/);
  });

  test("a missing file outside the workspace fails with the OS error", async (t) => {
    const ws = await tempWorkspace(t);
    const missing = join(ws, "..", `bub-missing-${crypto.randomUUID()}`, "nope.txt");
    await assert.rejects(
      fsReadTool().run({ path: missing }, toolContext({ _runtime_workspace: ws })),
      /ENOENT|No such file|not found/i,
    );
  });

  test("a relative path without a workspace fails", async () => {
    await assert.rejects(
      fsReadTool().run({ path: "notes.txt" }, toolContext({})),
      { message: "relative path 'notes.txt' is not allowed without a workspace" },
    );
  });
});

describe("fs.write", () => {
  test("creates parent directories and returns wrote: <absolute path>", async (t) => {
    const ws = await tempWorkspace(t);
    const ctx = toolContext({ _runtime_workspace: ws });
    const out = await fsWriteTool().run({ path: "a/b/c.txt", content: "héllo\n" }, ctx);
    const target = join(await realpath(ws), "a/b/c.txt");
    assert.equal(out, `wrote: ${target}`);
    assert.equal(await readFile(target, "utf8"), "héllo\n");
    assert.equal(await fsWriteTool().run({ path: target, content: "x" }, ctx), `wrote: ${target}`);
    assert.equal(await readFile(target, "utf8"), "x");
  });

  test("a relative path without a workspace fails and writes nothing", async (t) => {
    const ws = await tempWorkspace(t);
    await assert.rejects(
      fsWriteTool().run({ path: "x.txt", content: "x" }, toolContext({})),
      { message: "relative path 'x.txt' is not allowed without a workspace" },
    );
    assert.deepEqual(await readdir(ws), []);
  });
});

describe("fs.edit", () => {
  test("replaces every occurrence after line start, drops the final newline, returns edited:", async (t) => {
    const ws = await tempWorkspace(t);
    const file = join(ws, "e.txt");
    await writeFile(file, "foo 1\r\nfoo 2\nfoo 3 foo\n");
    const ctx = toolContext({ _runtime_workspace: ws });
    const out = await fsEditTool().run({ path: "e.txt", old: "foo", new: "bar", start: "1" }, ctx);
    assert.equal(out, `edited: ${await realpath(file)}`);
    assert.equal(await readFile(file, "utf8"), "foo 1\nbar 2\nbar 3 bar");
  });

  test("replacement text is literal ($& and $1 are not patterns)", async (t) => {
    const ws = await tempWorkspace(t);
    await writeFile(join(ws, "p.txt"), "price: X");
    await fsEditTool().run(
      { path: "p.txt", old: "X", new: "$& $1" },
      toolContext({ _runtime_workspace: ws }),
    );
    assert.equal(await readFile(join(ws, "p.txt"), "utf8"), "price: $& $1");
  });

  test("absent text fails with '<old>' not found in <path> from line <start> and leaves the file", async (t) => {
    const ws = await tempWorkspace(t);
    const file = join(ws, "e.txt");
    await writeFile(file, "alpha\nbeta\n");
    const before = await stat(file);
    const ctx = toolContext({ _runtime_workspace: ws });
    const resolved = await realpath(file);
    await assert.rejects(
      fsEditTool().run({ path: "e.txt", old: "alpha", new: "x", start: 1 }, ctx),
      { message: `'alpha' not found in ${resolved} from line 1` },
    );
    assert.equal(await readFile(file, "utf8"), "alpha\nbeta\n");
    assert.equal((await stat(file)).mtimeMs, before.mtimeMs);
  });

  test("an empty old text and a binary file are rejected without writing", async (t) => {
    const ws = await tempWorkspace(t);
    await mkdir(join(ws, "d"));
    await writeFile(join(ws, "d/t.txt"), "abc");
    await writeFile(join(ws, "d/b.bin"), new Uint8Array([0, 1, 2, 0x61]));
    const ctx = toolContext({ _runtime_workspace: ws });
    await assert.rejects(fsEditTool().run({ path: "d/t.txt", old: "", new: "x" }, ctx), RangeError);
    await assert.rejects(fsEditTool().run({ path: "d/b.bin", old: "a", new: "x" }, ctx), /binary/);
    assert.equal(await readFile(join(ws, "d/t.txt"), "utf8"), "abc");
    assert.deepEqual([...await readFile(join(ws, "d/b.bin"))], [0, 1, 2, 0x61]);
  });

  test("a relative path without a workspace fails", async () => {
    await assert.rejects(
      fsEditTool().run({ path: "e.txt", old: "a", new: "b" }, toolContext({})),
      { message: "relative path 'e.txt' is not allowed without a workspace" },
    );
  });
});
