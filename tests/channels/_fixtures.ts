/**
 * Fixtures for channel tests: a framework with memory channels and a gated model, a fake clock.
 *
 * @module
 */
import type { AdmitDecision } from "../../src/kernel/channel.ts";
import type { ChannelMessage } from "../../src/kernel/channel_message.ts";
import { contentOf } from "../../src/kernel/envelope.ts";
import type { KernelFramework } from "../../src/kernel/framework.ts";
import type { Plugin } from "../../src/kernel/plugin.ts";
import { MemoryChannel, type MemoryChannelOptions } from "../../src/channels/memory_channel.ts";
import {
  type ChannelClock,
  ChannelManager,
  type ChannelManagerOptions,
} from "../../src/channels/manager.ts";
import { type Deferred, deferred, kernelFixture, untilAborted } from "../_helpers/kernel.ts";

/** One model call held open until the test releases it. */
export interface GatedCall {
  /** The prompt text. */
  readonly prompt: string;
  /** The session id. */
  readonly sessionId: string;
  /** The turn's signal. */
  readonly signal: AbortSignal | undefined;
  /** Releases the call with a reply (default `reply:<prompt>`) or runs `action` first. */
  release(reply?: string): void;
  /** Runs `action` inside the model call, then replies. */
  releaseWith(action: () => Promise<void>, reply?: string): void;
}

/** A model whose calls wait for the test. */
export class GatedModel {
  readonly calls: GatedCall[] = [];
  #waiters: { count: number; done: Deferred<void> }[] = [];

  /** The `runModel` hook. */
  readonly runModel = (
    { prompt, sessionId, signal }: { prompt: unknown; sessionId: string; signal?: AbortSignal },
  ): Promise<string> => {
    const gate = deferred<() => Promise<string>>();
    const text = String(prompt);
    this.calls.push({
      prompt: text,
      sessionId,
      signal,
      release: (reply) => gate.resolve(() => Promise.resolve(reply ?? `reply:${text}`)),
      releaseWith: (action, reply) =>
        gate.resolve(async () => {
          await action();
          return reply ?? `reply:${text}`;
        }),
    });
    for (const waiter of [...this.#waiters]) {
      if (this.calls.length >= waiter.count) {
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
        waiter.done.resolve();
      }
    }
    return Promise.race([gate.promise, untilAborted(signal)]).then((run) => run());
  };

  /** Resolves once `count` calls have started. */
  waitForCalls(count: number): Promise<void> {
    if (this.calls.length >= count) return Promise.resolve();
    const done = deferred<void>();
    this.#waiters.push({ count, done });
    return done.promise;
  }

  /** The call whose prompt is `prompt` (throws when absent). */
  find(prompt: string): GatedCall {
    const call = this.calls.find((c) => c.prompt === prompt);
    if (!call) throw new Error(`No model call for ${JSON.stringify(prompt)}`);
    return call;
  }

  /** The call at `index` (throws when absent). */
  call(index: number): GatedCall {
    const call = this.calls[index];
    if (!call) throw new Error(`No model call #${index}; ${this.calls.length} started`);
    return call;
  }
}

/** Options of {@link channelFixture}. */
export interface ChannelFixtureOptions {
  /** Extra memory channels (the first one is `memory`). */
  channels?: MemoryChannelOptions[];
  /** Extra hooks of the test plugin. */
  hooks?: Partial<Plugin>;
  /** The admission policy of the `memory` channel. */
  admit?: MemoryChannelOptions["admit"];
}

/** A builtin framework in a temp dir with memory channels and a gated model. */
export interface ChannelFixture extends Disposable {
  readonly framework: KernelFramework;
  readonly model: GatedModel;
  /** The channels by name, filled when the manager asks for them. */
  readonly channels: Map<string, MemoryChannel>;
  /** The `memory` channel. */
  channel(name?: string): MemoryChannel;
  /** Errors seen by `onError`, as `[stage, error]`. */
  readonly errors: [string, unknown][];
}

/** Creates a {@link ChannelFixture}; use with `using fx = channelFixture();`. */
export function channelFixture(options: ChannelFixtureOptions = {}): ChannelFixture {
  const base = kernelFixture({ builtin: true });
  const model = new GatedModel();
  const channels = new Map<string, MemoryChannel>();
  const errors: [string, unknown][] = [];
  const specs = [{ name: "memory", admit: options.admit }, ...(options.channels ?? [])];
  const plugin: Plugin = {
    name: "channel-test",
    provideChannels: ({ messageHandler }) =>
      specs.map((spec) => {
        const channel = new MemoryChannel(messageHandler, spec);
        channels.set(channel.name, channel);
        return channel;
      }),
    loadState: ({ sessionId }) => ({ session_id: sessionId }),
    buildPrompt: ({ message }) => contentOf(message),
    runModel: model.runModel,
    onError: ({ stage, error }) => void errors.push([stage, error]),
    ...options.hooks,
  };
  base.framework.register(plugin);
  return {
    framework: base.framework,
    model,
    channels,
    errors,
    channel(name = "memory") {
      const channel = channels.get(name);
      if (!channel) throw new Error(`No channel ${name}`);
      return channel;
    },
    [Symbol.dispose]: () => base[Symbol.dispose](),
  };
}

/** The contents of sent messages. */
export function contents(messages: readonly ChannelMessage[]): string[] {
  return messages.map((message) => message.content);
}

/** A decision-returning admit policy from a function of the message content. */
export function admitBy(
  decide: (content: string, isRunning: boolean) => AdmitDecision | null,
): MemoryChannelOptions["admit"] {
  return ({ message, turn }) => decide(String((message as ChannelMessage).content), turn.isRunning);
}

/** A clock whose time only moves when the test says so. */
export class FakeClock implements ChannelClock {
  #now = 0;
  #timers = new Map<number, { at: number; callback: () => void }>();
  #next = 1;

  now(): number {
    return this.#now;
  }

  setTimeout(callback: () => void, ms: number): unknown {
    const id = this.#next++;
    this.#timers.set(id, { at: this.#now + ms, callback });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.#timers.delete(handle as number);
  }

  /** Timers not yet fired. */
  get pending(): number {
    return this.#timers.size;
  }

  /** Moves time forward by `seconds`, firing due timers in order. */
  advance(seconds: number): void {
    this.#now += seconds * 1000;
    const due = [...this.#timers.entries()].filter(([, t]) => t.at <= this.#now)
      .sort((a, b) => a[1].at - b[1].at);
    for (const [id, timer] of due) {
      this.#timers.delete(id);
      timer.callback();
    }
  }
}

/** Lets pending promise callbacks run (several macrotask turns). */
export async function settle(rounds: number = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((resolve) => setTimeout(resolve, 0));
}

/** A manager bound to the framework inside an open `running()` scope (no listen loop). */
export interface OpenManager extends AsyncDisposable {
  readonly manager: ChannelManager;
  /** Admission then, when admitted, scheduling: what the listen loop does with one message. */
  dispatch(message: unknown): Promise<boolean>;
}

/**
 * Creates a manager, binds it as router and enters `running()` (skipped with `running: false`);
 * disposing shuts the manager down, unbinds it and closes the scope.
 */
export async function openManager(
  framework: KernelFramework,
  options: ChannelManagerOptions & { running?: boolean } = {},
): Promise<OpenManager> {
  const manager = new ChannelManager(framework, options);
  framework.bindChannelRouter(manager);
  const scope = options.running === false ? null : await framework.running();
  return {
    manager,
    async dispatch(message) {
      const admitted = await manager.admit(message);
      if (admitted) void manager.schedule(message);
      return admitted;
    },
    async [Symbol.asyncDispose]() {
      try {
        await manager.shutdown();
      } finally {
        framework.bindChannelRouter(null);
        await scope?.close();
      }
    },
  };
}
