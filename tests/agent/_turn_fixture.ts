/**
 * A builtin `BubFramework` wired to a real {@link MockLlmServer}, for end-to-end turn tests
 * through `processInbound`.
 *
 * @module
 */
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BubFramework } from "../../src/builtin/framework.ts";
import type { BuiltinPlugin } from "../../src/builtin/plugin.ts";
import type { Envelope } from "../../src/kernel/envelope.ts";
import { AsyncStreamEvents, type StreamEvent } from "../../src/kernel/stream.ts";
import type { Plugin } from "../../src/kernel/plugin.ts";
import type { TurnResult } from "../../src/kernel/turn.ts";
import type { TapeEntry } from "../../src/tape/entry.ts";
import type { TapeStore } from "../../src/tape/store.ts";
import { Tape } from "../../src/tape/tape.ts";
import { MockLlmServer, type MockLlmServerOptions } from "../../src/testing/mock_llm_server.ts";
import type { Tool } from "../../src/tools/tool.ts";

/** Options of {@link turnFixture}. */
export interface TurnFixtureOptions extends MockLlmServerOptions {
  /**
   * Extra `BUB_*` variables (`BUB_MODEL`, `BUB_API_KEY` and `BUB_API_BASE` are preset), or a
   * function of the started server giving them (e.g. an API base on its port).
   */
  env?:
    | Record<string, string | undefined>
    | ((server: MockLlmServer) => Record<string, string | undefined>);
  /** Test tools registered on the builtin registry. */
  tools?: Tool[];
  /** Plugins registered after builtin. */
  plugins?: Plugin[];
  /** The data of `config.yml`, written before the framework is created. */
  config?: Record<string, unknown>;
}

/** A running framework + mock server; dispose it to stop both and delete the home. */
export interface TurnFixture extends AsyncDisposable {
  /** The framework (inside `running()`). */
  readonly bub: BubFramework;
  /** The builtin plugin. */
  readonly builtin: BuiltinPlugin;
  /** The mock model. */
  readonly server: MockLlmServer;
  /** Home and workspace directory. */
  readonly home: string;
  /** The events of each streamed turn, recorded by a pass-through `runModelStream` plugin. */
  readonly turns: RecordedTurn[];
  /** One turn; `stream` defaults to true. */
  turn(content: string | Envelope, options?: { stream?: boolean; signal?: AbortSignal }): Promise<
    TurnResult
  >;
  /** The persisted entries of a session tape (default `cli:local`). */
  entries(sessionId?: string): Promise<TapeEntry[]>;
  /** The JSON bodies of the requests the model received. */
  bodies(): Record<string, unknown>[];
}

/** The events one turn's stream yielded and the stream itself (for its final state). */
export interface RecordedTurn {
  /** The events of Bub's kinds (kernel spec §7.5: no tool_start/end, no step_start/end), in order. */
  events: StreamEvent[];
  /** Every event, in order. */
  allEvents: StreamEvent[];
  /** The builtin's stream (its `state` holds the loop's final usage). */
  stream: AsyncStreamEvents;
}

/** Event kinds this port adds to Bub's (kept out of `RecordedTurn.events`). */
const PORT_KINDS: ReadonlySet<string> = new Set([
  "tool_start",
  "tool_end",
  "step_start",
  "step_end",
]);

/** The API key every fixture configures (must never reach the tape or the logs). */
export const TEST_API_KEY = "sk-test-SECRET-9f3c1a";

/** Starts a mock server and a builtin framework inside `running()`. */
export async function turnFixture(options: TurnFixtureOptions = {}): Promise<TurnFixture> {
  const home = realpathSync(mkdtempSync(join(tmpdir(), "bub-turn-test-")));
  const server = await MockLlmServer.start(options);
  let scope: AsyncDisposable | null = null;
  try {
    if (options.config) writeFileSync(join(home, "config.yml"), JSON.stringify(options.config));
    const bub = new BubFramework({
      home,
      configFile: join(home, "config.yml"),
      loadDotenv: false,
      workspace: home,
      builtin: {
        env: {
          BUB_MODEL: "openai:gpt-test",
          BUB_API_KEY: TEST_API_KEY,
          BUB_API_BASE: server.url,
          ...(typeof options.env === "function" ? options.env(server) : options.env),
        },
      },
    });
    bub.loadBuiltinHooks();
    const builtin = bub.pluginManager.get("builtin") as BuiltinPlugin;
    for (const tool of options.tools ?? []) builtin.runtime.registry.register(tool);
    const turns: RecordedTurn[] = [];
    bub.register({
      name: "test-recorder",
      async runModelStream(args: Record<string, unknown>): Promise<AsyncStreamEvents> {
        const inner = await (builtin.runModelStream as (a: unknown) => Promise<AsyncStreamEvents>)(
          args,
        );
        const recorded: RecordedTurn = { events: [], allEvents: [], stream: inner };
        turns.push(recorded);
        async function* tap(): AsyncGenerator<StreamEvent> {
          for await (const event of inner) {
            recorded.allEvents.push(event);
            if (!PORT_KINDS.has(event.kind)) recorded.events.push(event);
            yield event;
          }
        }
        return new AsyncStreamEvents(tap(), { state: inner.state, onClose: () => inner.close() });
      },
    });
    for (const plugin of options.plugins ?? []) bub.register(plugin);
    scope = await bub.running();
    const running = scope;
    return {
      bub,
      builtin,
      server,
      home,
      turns,
      turn(content, turnOptions = {}) {
        const envelope = typeof content === "string"
          ? { channel: "cli", chatId: "local", content }
          : content;
        return bub.processInbound(envelope, { stream: true, ...turnOptions });
      },
      async entries(sessionId = "cli:local") {
        const store = bub.getTapeStore<TapeStore>();
        if (!store) throw new Error("no tape store: the fixture is not running");
        return await new Tape({ store }).sessionTape(sessionId, home).query().all();
      },
      bodies() {
        return server.requests.map((request) => request.body as Record<string, unknown>);
      },
      async [Symbol.asyncDispose]() {
        try {
          await running[Symbol.asyncDispose]();
        } finally {
          await server.close();
          rmSync(home, { recursive: true, force: true });
        }
      },
    };
  } catch (error) {
    await scope?.[Symbol.asyncDispose]();
    await server.close();
    rmSync(home, { recursive: true, force: true });
    throw error;
  }
}

/** Compact view of entries: `kind` or `event:<name>` / `anchor:<name>`. */
export function kinds(entries: readonly TapeEntry[]): string[] {
  return entries.map((entry) => {
    const payload = entry.payload as { name?: unknown };
    if (entry.kind === "event" || entry.kind === "anchor") return `${entry.kind}:${payload.name}`;
    return entry.kind;
  });
}

/** The `data` of every `event` entry named `name`. */
export function eventData(entries: readonly TapeEntry[], name: string): Record<string, unknown>[] {
  return entries
    .filter((entry) =>
      entry.kind === "event" && (entry.payload as { name?: unknown }).name === name
    )
    .map((entry) => (entry.payload as { data: Record<string, unknown> }).data);
}
