/**
 * A plugin for the cluster takeover tests (loaded through `plugins:` in config.yml): with
 * `BUB_TEST_KILL_AFTER_MERGE=1` the process SIGKILLs itself when it renders a turn's answer,
 * that is after the turn's fork merged into the session tape and before the answer is sent and
 * the cluster completes the message: the crash window between a merged turn and its completion.
 */
import process from "node:process";

export default {
  name: "cluster-test-kill-after-merge",
  renderOutbound(): null {
    if (process.env.BUB_TEST_KILL_AFTER_MERGE === "1") process.kill(process.pid, "SIGKILL");
    return null;
  },
};
