/**
 * `md5Hex` reuses one word buffer for short texts and reads ASCII texts without the encoder: a
 * digest must not depend on the texts digested before it (longer, shorter, non-ASCII), and texts
 * past the reused buffer (more than 5 blocks) take a buffer of their own.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { test } from "node:test";
import { md5Hex } from "../../src/_internal/md5.ts";

const nodeMd5 = (text: string): string => createHash("md5").update(text, "utf8").digest("hex");

test("md5Hex of a text does not depend on the texts digested before it", () => {
  const texts = [
    "a".repeat(311),
    "b",
    "c".repeat(70),
    "",
    "é".repeat(100),
    "z",
    "x".repeat(312),
    "🎉".repeat(3),
    "cli:local",
    "y".repeat(1000),
    "/work/project",
  ];
  for (let round = 0; round < 3; round++) {
    for (const text of round === 1 ? [...texts].reverse() : texts) {
      assert.equal(md5Hex(text), nodeMd5(text), `${text.slice(0, 12)}… (${text.length})`);
    }
  }
});
