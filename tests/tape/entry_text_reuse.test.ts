/**
 * A stored copy whose text is kept (a fork's buffer) is reused when stored again: with its own id
 * it is the copy itself (a new tape numbers its entries as the buffer did), with another id a copy
 * sharing its parts; the line is the same text either way.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { storedEntry } from "../../src/tape/store/_entry_text.ts";
import { messageEntry } from "../../src/tape/entry.ts";

test("a kept copy stored again with its own id is the same copy and line", () => {
  const entry = messageEntry({ role: "user", content: 'hé, "x": 1e-7' }, { run_id: "r" });
  const local = storedEntry("t", entry, 3, true);
  const again = storedEntry("t", local.copy, 3, true);
  assert.equal(again.copy, local.copy);
  assert.equal(again.line, local.line);
  const renumbered = storedEntry("t", again.copy, 9);
  assert.notEqual(renumbered.copy, local.copy);
  assert.equal(renumbered.copy.id, 9);
  assert.equal(renumbered.copy.payload, local.copy.payload);
  assert.equal(renumbered.line, local.line.replace('{"id": 3, ', '{"id": 9, '));
  assert.deepEqual(JSON.parse(renumbered.line), { ...local.copy, id: 9 });
});
