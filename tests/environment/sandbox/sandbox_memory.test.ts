/**
 * The memory bound: a sandboxed command that allocates past `sandbox_memory_mb` is stopped, by
 * the session's memory cgroup (the kernel's OOM killer, SIGKILL) where Bub may create one, else
 * by RLIMIT_AS (its allocation fails); Bub and the session's next command go on. The bound is
 * the session's: its processes together, not each alone.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { sandboxMemoryBound } from "../../../src/environment/sandbox_probe.ts";
import { DEFAULT_SANDBOX_LIMITS } from "../../../src/environment/sandbox_profile.ts";
import { type Layout, layout, run, sandboxOf, SKIP } from "./_helpers.ts";

const MIB = 1024 * 1024;
const HELD = 100 * MIB;

/**
 * A pipeline whose `tail` holds {@link HELD} bytes for `seconds`, then prints the count it got
 * (`held=<bytes>`) and how `tail` ended (`tail=<status>`: 137 when the OOM killer ended it).
 */
function hold(seconds: number): string {
  return `(head -c ${HELD} /dev/zero; sleep ${seconds}) | tail -c ${HELD} | ` +
    `{ echo "held=$(wc -c)"; }; echo "tail=\${PIPESTATUS[1]}"`;
}

describe("the memory bound of a sandboxed session", { skip: SKIP }, () => {
  let dirs: Layout;
  before(() => dirs = layout());
  after(() => dirs?.remove());

  test("a command allocating past sandbox_memory_mb is stopped; Bub and the session go on", async () => {
    await using env = sandboxOf(dirs, {
      limits: { ...DEFAULT_SANDBOX_LIMITS, memoryBytes: 64 * MIB },
    });
    const result = await run(env, hold(0));
    assert.doesNotMatch(result.stdout, new RegExp(`held=${HELD}`), result.stderr);
    const code = Number(/tail=(\d+)/.exec(result.stdout)?.[1]);
    assert.notEqual(code, 0, result.stdout + result.stderr);
    if (sandboxMemoryBound().kind !== "rlimit") {
      assert.equal(code, 137, "killed by the cgroup's OOM killer (SIGKILL)");
    }
    assert.ok(process.memoryUsage().rss > 0); // Bub's own process is untouched
    assert.equal((await run(env, "echo still here")).stdout, "still here\n");
  });

  test("under the bound the same command holds all it asked for", async () => {
    await using env = sandboxOf(dirs, {
      limits: { ...DEFAULT_SANDBOX_LIMITS, memoryBytes: 160 * MIB },
    });
    const result = await run(env, hold(0));
    assert.equal(result.stdout, `held=${HELD}\ntail=0\n`, result.stderr);
  });

  test(
    "where a memory cgroup applies, the bound covers the session's processes together",
    { skip: sandboxMemoryBound().kind === "rlimit" ? "no memory cgroup on this host" : false },
    async () => {
      await using env = sandboxOf(dirs, {
        limits: { ...DEFAULT_SANDBOX_LIMITS, memoryBytes: 160 * MIB },
      });
      // Two holders at once: each alone fits (the test above), together they do not.
      const result = await run(env, `{ ${hold(3)}; } & { ${hold(3)}; } & wait`);
      const held = result.stdout.match(new RegExp(`held=${HELD}`, "g")) ?? [];
      assert.ok(held.length < 2, result.stdout);
      assert.match(result.stdout, /tail=137/);
    },
  );
});
