/**
 * The per-entry date work of the hot path (issue 13): `isoNow` formats an instant once per
 * millisecond, and `validateEntry` remembers the last valid date, without letting an invalid
 * date through or changing what a date formats to.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { isoFromMicros, isoNow } from "../../src/tape/_dates.ts";
import { createEntry, validateEntry } from "../../src/tape/entry.ts";

test("isoNow gives each instant's own ISO form, also when asked twice in a row", () => {
  for (const ms of [0, 1, 1, 1_700_000_000_123, 1_700_000_000_123, 1_700_000_000_124]) {
    assert.equal(isoNow(new Date(ms)), isoFromMicros(ms * 1000));
  }
  const before = Date.now();
  const now = isoNow();
  const after = Date.now();
  assert.ok(now >= isoFromMicros(before * 1000) && now <= isoFromMicros(after * 1000));
});

test("validateEntry rejects an invalid date right after accepting a valid one", () => {
  const valid = createEntry("event", { name: "x" });
  assert.equal(validateEntry("a__b", valid).date, valid.date);
  assert.equal(validateEntry("a__b", valid).date, valid.date);
  for (const date of ["", "not a date", "2026-13-01T00:00:00+00:00", `${valid.date}x`]) {
    assert.throws(() => validateEntry("a__b", { ...valid, date }), TypeError);
  }
  assert.equal(validateEntry("a__b", valid).date, valid.date);
});
