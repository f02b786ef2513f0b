/**
 * The rules behind GitHub's and Linear's linked attachments, on the real host names (the gateway
 * tests can only use the `api_base` host): which links of a comment are attachments, which get
 * the token, which redirects are followed; and how a downloaded file's type is told.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { parseMarkdown } from "chat";
import { githubMediaSource } from "../../../src/channels/chat/_github_media.ts";
import { linearMediaSource } from "../../../src/channels/chat/_linear_media.ts";
import { attachmentLinks, mimeTypeOf } from "../../../src/channels/chat/_linked_media.ts";
import { pdfFile, PNG_BASE64 } from "../../agent/_media_files.ts";

const ASSET = "https://github.com/user-attachments/assets/0b9f2a4e-1111-2222-3333-444455556666";
const FILE = "https://github.com/user-attachments/files/17/report.pdf";

describe("GitHub's attachment links", () => {
  const source = githubMediaSource(null, "ghp_x");

  test("images, <img> tags, file links and bare attachment URLs are attachments; other links are not", () => {
    const markdown = [
      `<img width="300" alt="Image" src="${ASSET}" />`,
      `[report.pdf](${FILE})`,
      "![old](https://user-images.githubusercontent.com/1/2-abc.png)",
      "https://github.com/acme/app/assets/5/6f1e2d3c-aaaa-bbbb-cccc-ddddeeeeffff",
      "[a pull request](https://github.com/acme/app/pull/3)",
      "![elsewhere](https://example.com/user-attachments/assets/x.png)",
      `[again](${FILE})`,
    ].join("\n\n");
    const links = attachmentLinks(parseMarkdown(markdown), source);
    assert.deepEqual(links.map((link) => [link.url, link.name, link.image]), [
      [ASSET, "0b9f2a4e-1111-2222-3333-444455556666", true],
      [FILE, "report.pdf", false],
      ["https://user-images.githubusercontent.com/1/2-abc.png", "old", true],
      [
        "https://github.com/acme/app/assets/5/6f1e2d3c-aaaa-bbbb-cccc-ddddeeeeffff",
        "6f1e2d3c-aaaa-bbbb-cccc-ddddeeeeffff",
        false,
      ],
    ]);
  });

  test("the token goes to github.com's attachment URLs only, never to a githubusercontent.com host", () => {
    assert.equal(source.authorization, "Bearer ghp_x");
    assert.equal(source.authorizes!(new URL(ASSET)), true);
    const signed = "https://private-user-images.githubusercontent.com/1/2.png?jwt=abc";
    assert.equal(source.authorizes!(new URL(signed)), false);
  });

  test("a redirect is followed only to GitHub's https storage hosts", () => {
    const allowed = [
      "https://private-user-images.githubusercontent.com/1/2.png?jwt=abc",
      "https://objects.githubusercontent.com/github-production-repository-file/1/2?X-Amz-Signature=s",
      "https://github-production-user-asset-6210df.s3.amazonaws.com/1/2.png",
    ];
    for (const url of allowed) assert.equal(source.redirects!(new URL(url)), true, url);
    const refused = [
      "http://private-user-images.githubusercontent.com/1/2.png",
      "https://evil.example.com/steal",
      "https://githubusercontent.com.evil.example/1.png",
      "https://attacker-bucket.s3.amazonaws.com/1.png",
    ];
    for (const url of refused) assert.equal(source.redirects!(new URL(url)), false, url);
  });

  test("the api_base host (GitHub Enterprise Server) serves the same attachment paths, with the token", () => {
    const ghes = githubMediaSource("https://ghe.example.com/api/v3", "ghp_x");
    const url = new URL("https://ghe.example.com/user-attachments/assets/abc");
    assert.equal(ghes.hosts.includes("ghe.example.com"), true);
    assert.equal(ghes.accepts!(url), true);
    assert.equal(ghes.authorizes!(url), true);
    assert.equal(ghes.accepts!(new URL("https://ghe.example.com/api/v3/user")), false);
  });
});

describe("Linear's upload links", () => {
  test("links to uploads.linear.app are attachments, fetched with the API key; no redirect is followed", () => {
    const source = linearMediaSource(null, "lin_api_x");
    const upload = "https://uploads.linear.app/6db02bb9/d20adbea/4d9e";
    const markdown = `![shot.png](${upload})\n\n[elsewhere](https://example.com/file.pdf)`;
    const links = attachmentLinks(parseMarkdown(markdown), source);
    assert.deepEqual(links.map((link) => [link.url, link.name]), [[upload, "shot.png"]]);
    assert.equal(source.authorization, "lin_api_x");
    assert.equal(source.redirects, undefined);
  });
});

describe("the type of a downloaded attachment", () => {
  const png = Uint8Array.from(atob(PNG_BASE64), (c) => c.charCodeAt(0));

  test("is the answer's type, else the name's extension, else the bytes' signature", () => {
    assert.equal(mimeTypeOf("image/jpeg", "x", png), "image/jpeg");
    assert.equal(mimeTypeOf("application/octet-stream", "notes.txt", png), "text/plain");
    assert.equal(mimeTypeOf(null, "0b9f2a4e", png), "image/png");
    assert.equal(mimeTypeOf("binary/octet-stream", "x", pdfFile()), "application/pdf");
    assert.equal(mimeTypeOf(null, "x", new Uint8Array([1, 2, 3])), "application/octet-stream");
  });
});
