/**
 * The pure parts of the Linear and Google Chat platforms: Linear's webhook check (signature and
 * delivery time, the header winning over the body's `webhookTimestamp`), the rate-limit wait read
 * from a GraphQL error, and the Google Chat service account key (JSON or file), whose bad values
 * are `config` errors that never echo the key.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { linearRetryMs, verifyLinearWebhook } from "../../../src/channels/chat/_linear.ts";
import { parseServiceAccount } from "../../../src/channels/chat/_gchat.ts";
import { hmacHex } from "../../../src/testing/_fake_calls.ts";
import { BubError } from "../../../src/kernel/errors.ts";

describe("Linear webhook check and rate limits", () => {
  const secret = "s3cret";
  const now = 1_800_000_000_000;
  const signed = (body: string, extra: Record<string, string> = {}) =>
    new Headers({ "linear-signature": hmacHex(secret, body), ...extra });

  test("a signed body sent within a minute passes; a minute and more away, or timeless, fails", () => {
    const body = (ts: unknown) => JSON.stringify({ type: "Comment", webhookTimestamp: ts });
    assert.ok(verifyLinearWebhook(secret, signed(body(now - 59_000)), body(now - 59_000), now));
    assert.ok(!verifyLinearWebhook(secret, signed(body(now - 61_000)), body(now - 61_000), now));
    assert.ok(!verifyLinearWebhook(secret, signed(body(now + 61_000)), body(now + 61_000), now));
    const timeless = JSON.stringify({ type: "Comment" });
    assert.ok(!verifyLinearWebhook(secret, signed(timeless), timeless, now));
    const stale = body(now - 600_000);
    const fresh = signed(stale, { "linear-timestamp": String(now) });
    assert.ok(verifyLinearWebhook(secret, fresh, stale, now), "the header's time wins");
  });

  test("a body signed with another secret, or changed after signing, fails", () => {
    const body = JSON.stringify({ webhookTimestamp: now });
    const other = new Headers({ "linear-signature": hmacHex("other", body) });
    assert.ok(!verifyLinearWebhook(secret, other, body, now));
    assert.ok(!verifyLinearWebhook(secret, signed(body), body.replace("}", ',"x":1}'), now));
  });

  test("RATELIMITED waits until the named reset (capped at 60 s); other errors are not retried", () => {
    const limited = (reset?: number, status = 400) => ({
      response: {
        status,
        headers: new Headers(
          reset === undefined ? {} : {
            "x-ratelimit-requests-reset": String(reset),
          },
        ),
        errors: [{ extensions: { code: "RATELIMITED" } }],
      },
    });
    assert.equal(linearRetryMs(limited(now + 1500), now), 1500);
    assert.equal(linearRetryMs(limited(now + 3_600_000), now), 60_000);
    assert.equal(linearRetryMs(limited(), now), 1000);
    const http429 = { response: { status: 429, headers: new Headers(), errors: [] } };
    assert.equal(linearRetryMs(http429, now), 1000);
    const invalid = { response: { status: 400, errors: [{ extensions: { code: "INVALID" } }] } };
    assert.equal(linearRetryMs(invalid, now), null);
    assert.equal(linearRetryMs(new Error("network"), now), null);
  });
});

describe("the Google Chat service account key", () => {
  const key = {
    client_email: "bot@p.iam.gserviceaccount.com",
    private_key: "-----PEM SECRET-----",
  };

  test("is read as JSON or from the file a path names", () => {
    assert.equal(parseServiceAccount(JSON.stringify(key)).client_email, key.client_email);
    const dir = mkdtempSync(join(tmpdir(), "bub-gchat-key-"));
    try {
      const file = join(dir, "key.json");
      writeFileSync(file, JSON.stringify(key));
      assert.equal(parseServiceAccount(` ${file} `).private_key, key.private_key);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a bad key or a missing file is a config error that never shows the key", () => {
    const bad = [`{"private_key": "-----PEM SECRET-----"`, JSON.stringify({ private_key: "x" })];
    for (const value of bad) {
      assert.throws(() => parseServiceAccount(value), (error: unknown) => {
        assert.ok(error instanceof BubError && error.kind === "config");
        assert.match(error.message, /BUB_GCHAT_CREDENTIALS must be a service account key/);
        assert.ok(!error.message.includes("SECRET"));
        return true;
      });
    }
    assert.throws(
      () => parseServiceAccount("/nonexistent/bub-key.json"),
      (error: unknown) =>
        error instanceof BubError && error.kind === "config" &&
        error.message.includes("/nonexistent/bub-key.json"),
    );
  });
});
