/**
 * The one UTC time formatter: the second's text is what `toISOString` begins with, whatever
 * second came before, and the run id and archive stamp forms drop its separators.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  pad,
  utcCompactSecondText,
  utcSecondText,
  utcStamp,
} from "../../src/_internal/utc_text.ts";
import { newRunId } from "../../src/agent/run_id.ts";

test("utcSecondText is toISOString's date and time of each second, also right after another", () => {
  const base = 1_700_000_000;
  const seconds = [0, -1, 1, base, base, base + 1, base - 1, 253_402_300_799];
  for (let i = 0; i < 200; i++) seconds.push(base + i * 7_919, base - i * 86_399);
  for (const second of seconds) {
    const iso = new Date(second * 1000).toISOString().slice(0, 19);
    assert.equal(utcSecondText(second), iso);
    assert.equal(utcCompactSecondText(second), iso.replaceAll("-", "").replaceAll(":", ""));
  }
});

test("pad zero-pads to the width and leaves longer numbers whole", () => {
  assert.equal(pad(7), "07");
  assert.equal(pad(7, 3), "007");
  assert.equal(pad(123, 2), "123");
});

test("archive stamps and run ids keep their exact forms", () => {
  const at = new Date(Date.UTC(2026, 7, 21, 14, 51, 51, 123));
  assert.equal(utcStamp(at), "20260821T145151Z");
  assert.equal(utcStamp(new Date(Date.UTC(2001, 0, 2, 3, 4, 5, 999))), "20010102T030405Z");
  assert.match(newRunId(at), /^run-20260821T145151123\d{3}Z$/);
  assert.match(
    newRunId(new Date(Date.UTC(1999, 11, 31, 23, 59, 59, 7))),
    /^run-19991231T235959007\d{3}Z$/,
  );
});
