/**
 * The per-entry date work of the hot path (issue 13): `isoNow` formats an instant once per
 * millisecond, and `validateEntry` remembers the last valid date, without letting an invalid
 * date through or changing what a date formats to.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { isoFromMicros, isoNow } from "../../src/_internal/utc_text.ts";
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

test("isoFromMicros formats each instant on its own, whatever instant came before", () => {
  const reference = (micros: number) => {
    const d = new Date(Math.floor(micros / 1000));
    const fraction = d.getUTCMilliseconds() * 1000 + (micros - Math.floor(micros / 1000) * 1000);
    const iso = d.toISOString().slice(0, 19);
    return `${iso}${fraction ? `.${String(fraction).padStart(6, "0")}` : ""}+00:00`;
  };
  const base = 1_700_000_000_000_000;
  const instants = [base, base + 1, base + 999_999, base + 1_000_000, base, base - 1, 0, -1, 1];
  for (let i = 0; i < 200; i++) instants.push(base + i * 7_919 * 1_000, base - i * 13);
  for (const micros of instants) assert.equal(isoFromMicros(micros), reference(micros));
});
