/**
 * A process whose sandboxed session (network allowlist: a `socat` relay in each sandbox) runs
 * `true` over and over, so a spare sandbox is almost always being started. It prints the
 * workspace, then loops until killed. Used by sandbox_killed_owner.test.ts.
 */
import { layout, sandboxOf } from "./_helpers.ts";

const dirs = layout();
const env = sandboxOf(dirs, { network: { allow: ["example.com"] } });
console.log(dirs.workspace);
for (;;) {
  const command = await env.spawn("true");
  command.closeStdin();
  await command.wait();
}
