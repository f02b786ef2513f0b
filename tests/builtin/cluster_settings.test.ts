import assert from "node:assert/strict";
import { test } from "node:test";
import { loadTapeStoreSettings } from "../../src/builtin/settings.ts";
import { BubError } from "../../src/kernel/errors.ts";

test("cluster settings: defaults, env overrides, and a clear error naming the setting", () => {
  const defaults = loadTapeStoreSettings({ env: {} });
  assert.equal(defaults.cluster_lease_seconds, 15);
  assert.equal(defaults.cluster_poll_seconds, 0.5);
  assert.equal(defaults.cluster_hold_idle_seconds, 0);
  const set = loadTapeStoreSettings({
    env: {
      BUB_CLUSTER_LEASE_SECONDS: "3",
      BUB_CLUSTER_POLL_SECONDS: "0.2",
      BUB_CLUSTER_HOLD_IDLE_SECONDS: "1",
    },
  });
  assert.equal(set.cluster_lease_seconds, 3);
  assert.equal(set.cluster_poll_seconds, 0.2);
  assert.equal(set.cluster_hold_idle_seconds, 1);
  assert.throws(
    () => loadTapeStoreSettings({ env: { BUB_CLUSTER_LEASE_SECONDS: "0" } }),
    (error) => BubError.isInstance(error) && /cluster_lease_seconds/i.test(error.message),
  );
});
