import { test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { s } from "../../src/_internal/schema.ts";

// Bub's own schemas (builtin tools, settings) are written with the small builder in
// src/_internal/schema.ts so that importing Bub loads no schema library. It must answer exactly
// as the zod 4 schemas they replaced: the same JSON Schema (io: "input") and the same results.

type Pair = [name: string, lite: ReturnType<typeof s.unknown>, zod: z.ZodType];

const PAIRS: Pair[] = [
  ["string", s.string().describe("d"), z.string().describe("d")],
  [
    "int with default",
    s.int().min(0).default(30).describe("t"),
    z.int().min(0).default(30).describe("t"),
  ],
  ["nullable optional int", s.int().nullable().optional(), z.int().nullable().optional()],
  ["nullable optional string", s.string().nullable().optional(), z.string().nullable().optional()],
  ["string min default", s.string().min(1).default("h"), z.string().min(1).default("h")],
  ["array default", s.array(s.string()).default(["a"]), z.array(z.string()).default(["a"])],
  [
    "union of a string and a list of records",
    s.union([s.string(), s.array(s.record(s.string(), s.unknown()))]),
    z.union([z.string(), z.array(z.record(z.string(), z.unknown()))]),
  ],
  [
    "nullable record of primitives",
    s.record(s.string(), s.union([s.string(), s.number(), s.boolean()])).nullable(),
    z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).nullable(),
  ],
  ["number gt", s.number().gt(0).nullable(), z.number().gt(0).nullable()],
  ["int between", s.int().min(0).max(2), z.int().min(0).max(2)],
  [
    "object",
    s.object({ a: s.string(), b: s.int().default(0), c: s.boolean().optional() }),
    z.object({ a: z.string(), b: z.int().default(0), c: z.boolean().optional() }),
  ],
];

const SAFE = new Set([Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER]);
function withoutSafeBounds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSafeBounds);
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (key === "$schema") continue;
    if ((key === "minimum" || key === "maximum") && SAFE.has(item as number)) continue;
    out[key] = withoutSafeBounds(item);
  }
  return out;
}

const INPUTS: unknown[] = [
  undefined,
  null,
  "",
  "text",
  0,
  -1,
  1.5,
  2,
  3,
  Infinity,
  true,
  [],
  ["a", 1],
  [{ k: 1 }],
  {},
  { k: "v" },
  { k: [] },
  { a: "x" },
  { a: "x", b: 2, c: false, extra: 1 },
  { a: 1, b: "x" },
];

for (const [name, lite, zod] of PAIRS) {
  test(`schema builder: ${name} has zod's JSON Schema`, () => {
    assert.deepEqual(
      withoutSafeBounds(lite.toJSONSchema()),
      withoutSafeBounds(z.toJSONSchema(zod, { io: "input" })),
    );
  });

  test(`schema builder: ${name} validates as zod does`, () => {
    for (const input of INPUTS) {
      const mine = lite.safeParse(input);
      const theirs = zod.safeParse(input);
      const label = `${name} on ${JSON.stringify(input)}`;
      assert.equal(mine.success, theirs.success, label);
      if (mine.success && theirs.success) assert.deepEqual(mine.data, theirs.data, label);
      if (!mine.success && !theirs.success) {
        const pick = (i: { code: string; path: PropertyKey[]; message: string }) => ({
          code: i.code,
          path: i.path,
          message: i.message,
        });
        // zod also runs a length check on a value it has already refused as the wrong type;
        // that second issue at the same path is all the two may differ in.
        const refused = new Set(
          theirs.error.issues.filter((i) => i.code === "invalid_type").map((i) => i.path.join(".")),
        );
        const relevant = theirs.error.issues.filter((i) =>
          !(i.code.startsWith("too_") && refused.has(i.path.join(".")))
        );
        assert.deepEqual(mine.error.issues.map(pick), relevant.map((i) => pick(i as never)), label);
      }
    }
  });
}

test("schema builder: custom messages and the Standard Schema interface", async () => {
  const schema = s.int({ error: "must be an integer" }).min(1024, {
    error: "must be at least 1024",
  });
  const notInt = schema.safeParse(1.5);
  assert.equal(notInt.success, false);
  if (!notInt.success) {
    assert.deepEqual(notInt.error.issues[0], {
      expected: "int",
      code: "invalid_type",
      path: [],
      message: "must be an integer",
    });
  }
  const small = schema.safeParse(80);
  assert.equal(!small.success && small.error.issues[0]!.message, "must be at least 1024");
  const standard = schema["~standard"];
  assert.equal(standard.version, 1);
  assert.deepEqual(await standard.validate(2048), { value: 2048 });
  assert.deepEqual(standard.jsonSchema.input(), { type: "integer", minimum: 1024 });
});
