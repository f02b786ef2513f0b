import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { FreshListing } from "../../src/tape/file/_fresh_listing.ts";

function folder(): string {
  return mkdtempSync(join(tmpdir(), "bub-listing-"));
}

test("callers that ask while a listing runs share the next one, which sees what changed since", async () => {
  const dir = folder();
  try {
    writeFileSync(join(dir, "a.jsonl"), "");
    let reads = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const listing = new FreshListing(async () => {
      reads++;
      const names = await readdir(dir);
      if (reads === 1) await gate; // the first listing is read, and ends later
      return names;
    });
    const first = listing.names();
    await new Promise((resolve) => setTimeout(resolve, 20));
    writeFileSync(join(dir, "b.jsonl.fork.f1"), ""); // after the first listing was read
    const [second, third] = [listing.names(), listing.names()];
    release();
    assert.deepEqual([...await first], ["a.jsonl"]);
    assert.deepEqual([...await second].sort(), ["a.jsonl", "b.jsonl.fork.f1"]);
    assert.equal(await third, await second);
    assert.equal(reads, 2);
    assert.deepEqual([...await listing.names()].sort(), ["a.jsonl", "b.jsonl.fork.f1"]);
    assert.equal(reads, 3);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a missing folder rejects with ENOENT, and a later call lists it again", async () => {
  const dir = join(folder(), "tapes");
  try {
    const listing = new FreshListing(() => readdir(dir));
    await assert.rejects(
      listing.names(),
      (error) => (error as { code?: string }).code === "ENOENT",
    );
    mkdirSync(dir);
    writeFileSync(join(dir, "t.jsonl"), "");
    assert.deepEqual([...await listing.names()], ["t.jsonl"]);
  } finally {
    rmSync(join(dir, ".."), { recursive: true, force: true });
  }
});
