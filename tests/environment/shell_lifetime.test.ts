import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { LocalEnvironment } from "../../src/environment/local_environment.ts";
import { ShellManager } from "../../src/environment/shell_manager.ts";
import { type ManagedShell, OUTPUT_CUT_NOTE } from "../../src/environment/managed_shell.ts";
import { drivers, eventually, FAST, killGroup, liveMembers } from "./_helpers.ts";

/** Asserts that no live process of the shell's group remains. */
async function assertGroupGone(shell: ManagedShell): Promise<void> {
  const pgid = shell.process.pid!;
  await eventually(() => liveMembers(pgid).length === 0, 1000, `group ${pgid} to be gone`);
}

function cleanup(shells: ManagedShell[]): void {
  for (const shell of shells) killGroup(shell.process.pid);
}

for (const driver of drivers()) {
  describe(`shell lifetime (${driver.name} driver)`, () => {
    const environment = new LocalEnvironment(null, { driver });
    const TWO_SLEEPS = "sleep 300 & sleep 300";

    for (const ending of ["normal exit", "an exception", "cancellation"] as const) {
      test(`background shells survive across turns and are terminated on scope ${ending}`, async () => {
        const shells = new ShellManager({ timings: FAST });
        const lifespan = shells.lifespan();
        await lifespan.next();
        const started: ManagedShell[] = [];
        try {
          started.push(await shells.start({ command: TWO_SLEEPS, environment, sessionId: "s" }));
          await shells.run({ command: TWO_SLEEPS, environment, background: true, sessionId: "s" });
          started.push(...shells.shells.filter((s) => !started.includes(s)));
          // "Later turns": the shells are still addressable and running.
          await new Promise((resolve) => setTimeout(resolve, 50));
          for (const shell of started) {
            assert.equal(shells.get(shell.id).status, "running");
            await eventually(() => liveMembers(shell.process.pid!).length >= 2, 2000, "sleeps");
          }
          if (ending === "normal exit") {
            await lifespan.return(undefined);
          } else {
            const error = ending === "an exception"
              ? new Error("boom")
              : new DOMException("cancelled", "AbortError");
            await assert.rejects(lifespan.throw(error), (thrown) => thrown === error);
          }
          for (const shell of started) {
            assert.equal(shells.has(shell.id), false);
            await assertGroupGone(shell);
          }
        } finally {
          cleanup(started);
        }
      });
    }

    test("terminateSession only affects the current scope's shells of that session", async () => {
      const mine = new ShellManager({ timings: FAST });
      const theirs = new ShellManager({ timings: FAST });
      const all: ManagedShell[] = [];
      try {
        await using _theirs = theirs.openScope();
        await using _mine = mine.openScope();
        const a = await mine.start({ command: "sleep 300", environment, sessionId: "cli:1" });
        const b = await mine.start({ command: "sleep 300", environment, sessionId: "cli:2" });
        const c = await theirs.start({ command: "sleep 300", environment, sessionId: "cli:1" });
        all.push(a, b, c);
        assert.equal(await mine.terminateSession("cli:1"), 1);
        await assertGroupGone(a);
        assert.equal(mine.has(a.id), false);
        assert.equal(b.process.isRunning(), true);
        assert.equal(c.process.isRunning(), true);
        assert.equal(theirs.get(c.id).status, "running");
        assert.equal(await mine.terminateSession("cli:1"), 0);
      } finally {
        cleanup(all);
      }
      for (const shell of all) await assertGroupGone(shell);
    });

    test('starting a shell after its scope closed fails with "shell runtime is closed"', async () => {
      const shells = new ShellManager({ timings: FAST });
      const scope = shells.openScope();
      await scope.close();
      await assert.rejects(shells.start({ command: "true", environment }), {
        message: "shell runtime is closed",
      });
      await assert.rejects(shells.start({ command: "true", environment, scope }), {
        message: "shell runtime is closed",
      });
    });

    test("a start that completes after its scope closed terminates the new shell and fails", async () => {
      const shells = new ShellManager({ timings: FAST });
      const scope = shells.openScope();
      const box: { spawned: ManagedShell["process"] | null } = { spawned: null };
      const slow = new (class extends LocalEnvironment {
        override async spawn(command: string | string[]) {
          const proc = await environment.spawn(command);
          box.spawned = proc;
          await new Promise((resolve) => setTimeout(resolve, 100));
          return proc;
        }
      })();
      const starting = shells.start({ command: TWO_SLEEPS, environment: slow });
      await new Promise((resolve) => setTimeout(resolve, 20));
      const closing = scope.close();
      await assert.rejects(starting, { message: "shell runtime is closed" });
      await closing;
      try {
        const pid = box.spawned?.pid;
        assert.ok(pid);
        await eventually(() => liveMembers(pid).length === 0, 1000, "group gone");
        assert.equal(shells.shells.length, 0);
      } finally {
        killGroup(box.spawned?.pid ?? null);
      }
    });

    test("termination sends TERM, then KILL to a group that ignores TERM, and waits for it", async () => {
      const shells = new ShellManager({ timings: FAST });
      const started: ManagedShell[] = [];
      try {
        const polite = await shells.start({ command: TWO_SLEEPS, environment });
        const stubborn = await shells.start({
          command: `trap "" TERM; ${TWO_SLEEPS}`,
          environment,
        });
        started.push(polite, stubborn);
        await eventually(() => liveMembers(stubborn.process.pid!).length >= 3, 2000, "sleeps");
        const first = stubborn.terminate();
        assert.equal(stubborn.terminate(), first, "concurrent callers share one termination");
        await Promise.all([first, polite.terminate()]);
        assert.equal(polite.returncode, 143);
        assert.equal(stubborn.returncode, 137);
        assert.deepEqual(liveMembers(stubborn.process.pid!), []);
        await assertGroupGone(polite);
      } finally {
        cleanup(started);
      }
    });

    test("cancelling a foreground run waits for the kill to finish before rethrowing", async () => {
      const shells = new ShellManager({ timings: FAST });
      const controller = new AbortController();
      const reason = new Error("cancelled by test");
      const running = shells.run({
        command: `trap "" TERM; ${TWO_SLEEPS}`,
        environment,
        signal: controller.signal,
      });
      await eventually(() => shells.shells.length === 1, 2000, "shell start");
      const shell = shells.shells[0]!;
      try {
        await eventually(() => liveMembers(shell.process.pid!).length >= 3, 2000, "sleeps");
        controller.abort(reason);
        controller.abort(new Error("second"));
        await assert.rejects(running, (error) => error === reason);
        assert.equal(shell.returncode, 137);
        assert.deepEqual(liveMembers(shell.process.pid!), []);
        assert.equal(shells.has(shell.id), false);
      } finally {
        cleanup([shell]);
      }
    });

    test("children left after the shell exits are killed with the process group", async () => {
      const shells = new ShellManager({ timings: FAST });
      const shell = await shells.start({
        command: "sleep 300 >/dev/null 2>&1 & sleep 300 </dev/null >/dev/null 2>&1 & echo done",
        environment,
      });
      try {
        assert.equal(await shells.waitClosed(shell.id), 0);
        assert.equal(shell.output, "done\n");
        await assertGroupGone(shell);
        assert.equal(shells.has(shell.id), false);
      } finally {
        cleanup([shell]);
      }
    });

    test("a grandchild holding the output pipe does not make waiting hang", async () => {
      const shells = new ShellManager({ timings: FAST });
      await using _scope = shells.openScope();
      const output = await shells.run({ command: "sleep 300 & echo hi", environment });
      assert.equal(output, `hi\n${OUTPUT_CUT_NOTE}`);
      assert.equal(shells.shells.length, 0);
    });

    test("a command moved to the background by a timeout stays addressable until its scope closes", async () => {
      const shells = new ShellManager({ timings: FAST });
      const scope = shells.openScope();
      const text = await shells.run({ command: TWO_SLEEPS, environment, timeoutSeconds: 0.05 });
      const id = /shell_id: (bash-[0-9a-f]{8})$/.exec(text)?.[1];
      assert.ok(id, text);
      const shell = shells.get(id);
      try {
        assert.equal(shell.status, "running");
        await scope.close();
        await assertGroupGone(shell);
      } finally {
        cleanup([shell]);
      }
    });
  });
}
