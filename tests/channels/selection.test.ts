import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { Channel, Interface, Lifecycle } from "../../src/channels/channel.ts";
import { ChannelManager } from "../../src/channels/manager.ts";
import type { Channel as ChannelContract } from "../../src/kernel/channel.ts";
import { ChannelMessage } from "../../src/kernel/channel_message.ts";
import { kernelFixture } from "../_helpers/kernel.ts";

class Plain extends Channel {
  readonly name: string;
  readonly #enabled: boolean;
  constructor(name: string, enabled: boolean = true) {
    super();
    this.name = name;
    this.#enabled = enabled;
  }
  override get enabled(): boolean {
    return this.#enabled;
  }
  start(): Promise<void> {
    return Promise.resolve();
  }
  stop(): Promise<void> {
    return Promise.resolve();
  }
}

class Cli extends Interface {
  readonly name = "cli";
  start(): Promise<void> {
    return Promise.resolve();
  }
  stop(): Promise<void> {
    return Promise.resolve();
  }
}

class Runtime extends Lifecycle {
  readonly name: string;
  constructor(name: string) {
    super();
    this.name = name;
  }
  start(): Promise<void> {
    return Promise.resolve();
  }
  stop(): Promise<void> {
    return Promise.resolve();
  }
}

function select(enabled: string | string[], extra: ChannelContract[] = []): string[] {
  using fx = kernelFixture();
  fx.framework.register({
    name: "channels",
    provideChannels: () => [
      new Cli(),
      new Runtime("mcp.lifecycle"),
      new Runtime("manual.lifecycle"),
      new Plain("telegram"),
      new Plain("discord"),
      ...extra,
    ],
  });
  return new ChannelManager(fx.framework, { enabledChannels: enabled }).enabledChannels().map((c) =>
    c.name
  );
}

describe("enabled channel selection (kernel §8.5, builtin §10.3)", () => {
  const matrix: [string | string[], string[]][] = [
    [["all"], ["mcp.lifecycle", "manual.lifecycle", "telegram", "discord"]],
    [["cli"], ["cli", "mcp.lifecycle", "manual.lifecycle"]],
    [["mcp.lifecycle"], ["mcp.lifecycle"]],
    [["cli", "!mcp.lifecycle"], ["cli", "manual.lifecycle"]],
    [["all", "!mcp.lifecycle", "!telegram"], ["manual.lifecycle", "discord"]],
    [["mcp.lifecycle", "!mcp.lifecycle"], []],
    ["", []],
    ["cli, !mcp.lifecycle", ["cli", "manual.lifecycle"]],
    [" all , ,!discord", ["mcp.lifecycle", "manual.lifecycle", "telegram"]],
  ];
  for (const [names, expected] of matrix) {
    test(`114/123: ${JSON.stringify(names)} selects ${JSON.stringify(expected)}`, () => {
      assert.deepEqual(select(names), expected);
    });
  }

  test("114: order follows the channel map, not the order given", () => {
    assert.deepEqual(select(["discord", "cli"]), [
      "cli",
      "discord",
      "mcp.lifecycle",
      "manual.lifecycle",
    ]);
  });

  test("the default is all", () => {
    using fx = kernelFixture();
    fx.framework.register({ name: "c", provideChannels: () => [new Cli(), new Plain("telegram")] });
    assert.deepEqual(new ChannelManager(fx.framework).enabledChannels().map((c) => c.name), [
      "telegram",
    ]);
  });

  test("disabled channels are never selected", () => {
    assert.deepEqual(select(["all"], [new Plain("matrix", false)]), [
      "mcp.lifecycle",
      "manual.lifecycle",
      "telegram",
      "discord",
    ]);
    assert.deepEqual(select(["matrix"], [new Plain("matrix", false)]), []);
  });

  test("plain channel objects without the base class count as ordinary channels", () => {
    const bare: ChannelContract = {
      name: "bare",
      start: () => Promise.resolve(),
      stop: () => Promise.resolve(),
    };
    assert.deepEqual(select(["bare"], [bare]), ["bare", "mcp.lifecycle", "manual.lifecycle"]);
  });

  test("malformed names and timings are rejected with clear errors", () => {
    using fx = kernelFixture();
    assert.throws(
      () => new ChannelManager(fx.framework, { enabledChannels: [1] as unknown as string[] }),
      { name: "TypeError", message: /Invalid enabled channels: .* got \[1\]/ },
    );
    assert.throws(
      () => new ChannelManager(fx.framework, { debounceSeconds: -1 }),
      {
        name: "RangeError",
        message: "Invalid debounceSeconds: expected a non-negative number of seconds, got -1",
      },
    );
  });
});

describe("Channel base class (kernel §8.1)", () => {
  test("defaults: no debounce, enabled, send no-op, identity streamEvents, no admission opinion", async () => {
    const channel = new Plain("p");
    assert.equal(channel.needsDebounce, false);
    assert.equal(channel.enabled, true);
    assert.equal(
      await channel.send(new ChannelMessage({ sessionId: "s", channel: "p", content: "x" })),
      undefined,
    );
    const stream = (async function* () {})();
    assert.equal(channel.streamEvents({}, stream), stream);
    const turn = {
      sessionId: "s",
      isRunning: true,
      runningCount: 1,
      pendingCount: 0,
      steeringCount: 0,
    };
    assert.equal(await channel.admitMessage({ sessionId: "s", message: {}, turn }), null);
  });

  test("Interface and Lifecycle are Channels told apart with instanceof", () => {
    assert.ok(new Cli() instanceof Channel);
    assert.ok(new Runtime("r") instanceof Channel);
    assert.ok(!(new Cli() instanceof Lifecycle));
    assert.ok(!(new Runtime("r") instanceof Interface));
  });

  test("disposing a channel stops it", async () => {
    let stopped = 0;
    class Counting extends Plain {
      override stop(): Promise<void> {
        stopped++;
        return Promise.resolve();
      }
    }
    {
      await using _channel = new Counting("c");
    }
    assert.equal(stopped, 1);
  });
});
