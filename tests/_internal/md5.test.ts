import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { md5Hex } from "../../src/_internal/md5.ts";
import { sessionTapeName } from "../../src/tape/naming.ts";

const nodeMd5 = (text: string): string => createHash("md5").update(text, "utf8").digest("hex");

describe("md5Hex: the digest tape names are made of, without node:crypto", () => {
  test("the RFC 1321 test suite", () => {
    assert.equal(md5Hex(""), "d41d8cd98f00b204e9800998ecf8427e");
    assert.equal(md5Hex("a"), "0cc175b9c0f1b6a831c399e269772661");
    assert.equal(md5Hex("abc"), "900150983cd24fb0d6963f7d28e17f72");
    assert.equal(md5Hex("message digest"), "f96b697d7cb7938d525a2f31aaf161d0");
    assert.equal(md5Hex("abcdefghijklmnopqrstuvwxyz"), "c3fcd3d76192e4007dfb496cca67e13b");
    assert.equal(
      md5Hex("12345678901234567890123456789012345678901234567890123456789012345678901234567890"),
      "57edf4a22be3c955ac49da2e2107b67a",
    );
  });

  test("equals node:crypto for UTF-8 text of every length around the 64-byte blocks", () => {
    const texts = ["/home/ada/project", "cli:local", "héllo wörld 🎉", "日本語のセッション"];
    for (let length = 0; length <= 200; length++) texts.push("x".repeat(length));
    let seed = 7;
    for (let i = 0; i < 300; i++) {
      let text = "";
      const length = (seed = (seed * 1103515245 + 12345) % 2 ** 31) % 150;
      for (let j = 0; j < length; j++) {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        text += String.fromCodePoint(seed % 3 === 0 ? seed % 0xd7ff : 32 + (seed % 95));
      }
      texts.push(text);
    }
    for (const text of texts) assert.equal(md5Hex(text), nodeMd5(text), JSON.stringify(text));
  });

  test("session tape names are unchanged: md5(workspace)[0:16]__md5(session)[0:16]", () => {
    const workspace = "/work/project";
    assert.equal(
      sessionTapeName("cli:local", workspace),
      `${nodeMd5(workspace).slice(0, 16)}__${nodeMd5("cli:local").slice(0, 16)}`,
    );
    assert.equal(sessionTapeName("cli:local", workspace), sessionTapeName("cli:local", workspace));
  });
});
