import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { setImmediate } from "node:timers";
import { Environment, Process } from "../../src/kernel/environment.ts";
import { BubError } from "../../src/kernel/errors.ts";
import { ShellCommandError, ShellManager } from "../../src/environment/shell_manager.ts";
import { drivers, eventually, FAST, killGroup, liveMembers } from "./_helpers.ts";
import { LocalEnvironment } from "../../src/environment/local_environment.ts";

const ID = /^bash-[0-9a-f]{8}$/;

function idOf(text: string): string {
  const id = /(bash-[0-9a-f]{8})/.exec(text)?.[1];
  assert.ok(id, `no shell id in ${JSON.stringify(text)}`);
  return id;
}

describe("shell output capture", () => {
  for (const driver of drivers()) {
    test(`a 50 MB output is captured in order without loss (${driver.name} driver)`, async () => {
      const shells = new ShellManager({ timings: FAST, outputMaxBytes: 64 * 1024 * 1024 });
      const environment = new LocalEnvironment(null, { driver });
      const count = 6_500_000;
      const shell = await shells.start({ command: `seq 1 ${count}`, environment });
      assert.equal(await shell.waitClosed(), 0);
      const output = shell.output;
      assert.ok(output.length > 50_000_000, `only ${output.length} characters`);
      let expected = 1;
      let at = 0;
      while (at < output.length) {
        const end = output.indexOf("\n", at);
        assert.equal(output.slice(at, end), String(expected));
        expected += 1;
        at = end + 1;
      }
      assert.equal(expected, count + 1);
    });
  }

  test("stdout and stderr are combined in arrival order", async () => {
    const shells = new ShellManager({ timings: FAST });
    const output = await shells.run({
      command: "echo one; sleep 0.1; echo two >&2; sleep 0.1; echo three",
    });
    assert.equal(output, "one\ntwo\nthree");
  });

  test("invalid UTF-8 is decoded with replacement characters; split characters survive", async () => {
    const shells = new ShellManager({ timings: FAST });
    const output = await shells.run({
      command: "printf '\\377 ok '; printf '\\342\\234'; sleep 0.1; printf '\\223'",
    });
    assert.equal(output, "\uFFFD ok ✓");
  });

  test("commands get end-of-file on stdin", async () => {
    const shells = new ShellManager({ timings: FAST });
    assert.equal(await shells.run({ command: "cat; echo after-eof" }), "after-eof");
  });

  test("shell ids look like bash- plus 8 hex characters", async () => {
    const shells = new ShellManager({ timings: FAST });
    const ids = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const shell = await shells.start({ command: "true" });
      assert.match(shell.id, ID);
      ids.add(shell.id);
      await shell.waitClosed();
    }
    assert.equal(ids.size, 3);
  });
});

describe("bash tool texts", () => {
  test("a foreground command returns its trimmed output, or (no output)", async () => {
    const shells = new ShellManager({ timings: FAST });
    assert.equal(await shells.run({ command: "echo '  hi  '; echo" }), "hi");
    assert.equal(await shells.run({ command: "true" }), "(no output)");
    assert.equal(shells.shells.length, 0, "foreground shells are removed once finished");
  });

  test("cwd and env reach the command", async () => {
    const shells = new ShellManager({ timings: FAST });
    const out = await shells.run({ command: 'echo "$PWD $BUB_X"', cwd: "/", env: { BUB_X: "y" } });
    assert.equal(out, "/ y");
  });

  test("a non-zero exit throws with the exit code and the output", async () => {
    const shells = new ShellManager({ timings: FAST });
    await assert.rejects(shells.run({ command: "echo oops; exit 7" }), (error: unknown) => {
      assert.ok(error instanceof ShellCommandError);
      assert.equal(error.message, "command exited with code 7\noutput:\noops");
      assert.equal(error.exitCode, 7);
      return true;
    });
    await assert.rejects(shells.run({ command: "exit 3" }), {
      message: "command exited with code 3\noutput:\n(no output)",
    });
  });

  for (const driver of drivers()) {
    test(`a finished command is not timed out by an event loop that was busy (${driver.name} driver)`, async () => {
      const shells = new ShellManager({ timings: FAST });
      const environment = new LocalEnvironment(null, { driver });
      const running = shells.run({
        command: "sleep 0.5; echo finished",
        environment,
        timeoutSeconds: 1,
      });
      // Once the shell is listed its process runs and the timeout's timer is armed.
      while (shells.shells.length === 0) await new Promise((resolve) => setImmediate(resolve));
      // The machine is busy: the event loop runs nothing for 3 s (the command exits meanwhile),
      // and then the expired timer comes first (timers run before I/O in an event loop turn).
      await new Promise<void>((resolve) =>
        setImmediate(() => {
          const until = Date.now() + 3000;
          while (Date.now() < until) {
            // busy
          }
          resolve();
        })
      );
      assert.equal(await running, "finished");
    });
  }

  test("a foreground timeout keeps the command running in the background", async () => {
    const shells = new ShellManager({ timings: FAST });
    const text = await shells.run({ command: "echo early; sleep 300", timeoutSeconds: 0.2 });
    const id = idOf(text);
    assert.equal(
      text,
      `command timed out after 0.2 seconds; continuing in background\nshell_id: ${id}`,
    );
    const shell = shells.get(id);
    try {
      assert.equal(
        await shells.readOutput(id),
        `id: ${id}\nstatus: running\nexit_code: null\nnext_offset: 6\noutput:\nearly`,
      );
      const killed = await shells.kill(id);
      assert.equal(killed, `id: ${id}\nstatus: exited\nexit_code: 143`);
      assert.equal(shells.has(id), false);
      assert.deepEqual(liveMembers(shell.process.pid!), []);
    } finally {
      killGroup(shell.process.pid);
    }
  });

  test("a background start reports the id; output after exit finalizes and removes the shell", async () => {
    const shells = new ShellManager({ timings: FAST });
    const text = await shells.run({ command: "printf 'hello world\\n'", background: true });
    const id = idOf(text);
    assert.equal(
      text,
      `Shell started, shell_id: ${id}\nRetrieve the output with bash_output or terminate it with bash_kill.`,
    );
    await eventually(() => shells.get(id).returncode !== null, 5000, "exit");
    assert.equal(
      await shells.readOutput(id, { offset: 6, limit: 3 }),
      `id: ${id}\nstatus: exited\nexit_code: 0\nnext_offset: 9\noutput:\nwor`,
    );
    await assert.rejects(shells.readOutput(id), (error: unknown) => {
      assert.ok(BubError.isInstance(error));
      assert.equal((error as Error).message, `unknown shell id: ${id}`);
      return true;
    });
  });

  test("output paging clamps offset and limit", async () => {
    const shells = new ShellManager({ timings: FAST });
    const id = idOf(await shells.run({ command: "printf abc", background: true }));
    await eventually(() => shells.get(id).returncode !== null, 5000, "exit");
    await shells.get(id).waitClosed();
    const shell = shells.shells.find((s) => s.id === id);
    assert.equal(shell, undefined);
    const again = idOf(await shells.run({ command: "printf abc; sleep 300", background: true }));
    try {
      await eventually(() => shells.get(again).output === "abc", 5000, "output");
      assert.match(
        await shells.readOutput(again, { offset: 99 }),
        /next_offset: 3\noutput:\n\(no output\)$/,
      );
      assert.match(await shells.readOutput(again, { offset: -5, limit: -1 }), /next_offset: 0\n/);
      assert.match(
        await shells.readOutput(again, { offset: 1, limit: 10 }),
        /next_offset: 3\noutput:\nbc$/,
      );
    } finally {
      await shells.kill(again);
    }
  });

  test("kill on a finished shell reports exit code 0; unknown ids fail", async () => {
    const shells = new ShellManager({ timings: FAST });
    const id = idOf(await shells.run({ command: "true", background: true }));
    await eventually(() => shells.get(id).returncode !== null, 5000, "exit");
    assert.equal(await shells.kill(id), `id: ${id}\nstatus: exited\nexit_code: 0`);
    await assert.rejects(shells.kill(id), { message: `unknown shell id: ${id}` });
    await assert.rejects(shells.kill("bash-00000000"), {
      message: "unknown shell id: bash-00000000",
    });
  });
});

class StuckProcess extends Process {
  readonly pid = null;
  readonly stdout: ReadableStream<Uint8Array> = new ReadableStream();
  readonly stderr: ReadableStream<Uint8Array> = new ReadableStream();
  readonly returncode = null;
  wait(): Promise<number> {
    return new Promise(() => {});
  }
  writeStdin(): Promise<void> {
    return Promise.resolve();
  }
  closeStdin(): void {}
  signal(): void {
    throw new Error("signal refused");
  }
}

class StuckEnvironment extends Environment {
  spawn(): Promise<Process> {
    return Promise.resolve(new StuckProcess());
  }
  readText(): Promise<string> {
    return Promise.resolve("");
  }
  writeText(): Promise<void> {
    return Promise.resolve();
  }
}

describe("shell cleanup failures", () => {
  test('failed terminations are all attempted and raised as "shell cleanup failed"', async () => {
    const shells = new ShellManager({ timings: FAST });
    const scope = shells.openScope();
    const stuck = new StuckEnvironment();
    await shells.start({ command: "x", environment: stuck });
    await shells.start({ command: "y", environment: stuck });
    const real = await shells.start({ command: "sleep 300" });
    try {
      await assert.rejects(scope.close(), (error: unknown) => {
        assert.ok(error instanceof AggregateError);
        assert.equal(error.message, "shell cleanup failed");
        assert.equal(error.errors.length, 2);
        assert.equal((error.errors[0] as Error).message, "signal refused");
        return true;
      });
      assert.deepEqual(liveMembers(real.process.pid!), []);
    } finally {
      killGroup(real.process.pid);
    }
  });
});
