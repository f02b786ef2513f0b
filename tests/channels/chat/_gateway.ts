/**
 * One `bub gateway` for the chat platform tests: a real subprocess (or, for a cluster, several
 * on one PostgreSQL tape store of their own) serving one channel, answered by a mock model, with
 * throwaway directories. The test starts its fake platform and passes the platform's settings;
 * the harness adds what every gateway test sets (model, webhook port 0, short debounce), waits
 * until each instance serves webhooks, and disposes of everything it started. In a test:
 *
 * ```text
 * const slack = await FakeSlackServer.start();
 * await using gateway = await startGateway({
 *   channel: "slack",
 *   env: { BUB_SLACK_BOT_TOKEN: slack.botToken, … },
 *   context: () => JSON.stringify(slack.log.calls),
 * });
 * await slack.deliver(gateway.webhook, event);
 * await gateway.waitFor(() => slack.messagesIn("C0001").length > 0, "an answer");
 * ```
 *
 * @module
 */
import type { MockReply, MockRequest } from "../../../src/testing/_mock_reply.ts";
import { MockLlmServer } from "../../../src/testing/mock_llm_server.ts";
import {
  BIN,
  type Child,
  childEnv,
  runtimeCommand,
  startChild,
  type TempDirs,
  tempDirs,
} from "../../cli/_spawn.ts";
import { withAdmin } from "../../tape/_postgres.ts";
import { echoModel, userParts } from "./_echo_model.ts";

/** What {@link startGateway} starts. */
export interface GatewayOptions {
  /** The channel to enable (`bub gateway --enable-channel <channel>`), also the webhook path. */
  channel: string;
  /** The platform's settings and any other environment of the gateway (on top of the defaults). */
  env: Record<string, string | undefined>;
  /** The mock model's answers (default: `You said: <message>`, see `_echo_model.ts`). */
  model?: (request: MockRequest) => MockReply;
  /**
   * A PostgreSQL server URL: run `instances` gateways (default 2) on a database of their own
   * there, created now and dropped on dispose.
   */
  cluster?: { url: string; instances?: number };
  /**
   * False for a channel without webhooks (a socket connection): the harness then waits for
   * "serving <channel>" only and `webhook` is "". Default true.
   */
  webhooks?: boolean;
  /** Polled after each instance started until true (e.g. Discord's gateway session). */
  ready?: () => boolean;
  /** What a timeout message shows besides the gateways' stderr (e.g. the fake's call log). */
  context?: () => string;
  /** Runs before the first gateway starts (writes `config.yml`, a plugin into `BUB_HOME`). */
  setup?: (dirs: TempDirs) => void;
}

/** A running gateway (or cluster of gateways). */
export interface Gateway extends AsyncDisposable {
  /** The throwaway home, `BUB_HOME` and workspace (the gateways' working directory). */
  readonly dirs: TempDirs;
  /** The mock model all instances call. */
  readonly model: MockLlmServer;
  /** The gateway processes, in start order. */
  readonly instances: readonly Child[];
  /** The first instance. */
  readonly process: Child;
  /** The first instance's webhook URL for the channel (`…/webhooks/<channel>`; "" without). */
  readonly webhook: string;
  /** Each instance's webhook URL. */
  readonly webhooks: readonly string[];
  /**
   * Polls `probe` every 50 ms until it gives a value other than `undefined` or `false`, and
   * returns it; after `timeoutMs` (default 30 s) fails naming `what`, with the context and the
   * gateways' stderr.
   */
  waitFor<T>(probe: () => T | undefined | false, what: string, timeoutMs?: number): Promise<T>;
  /**
   * Waits for the first model request, after the `skip` first ones, whose last user message
   * contains `text` (timeout as {@link waitFor}).
   */
  modelRequest(text: string, skip?: number, timeoutMs?: number): Promise<MockRequest>;
}

const WEBHOOKS = /webhooks on (http:\/\/127\.0\.0\.1:\d+)/;

/** Starts the fake platform's gateway; dispose it (`await using`, or in `after`). */
export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const dirs = tempDirs(`bub-gateway-${options.channel}-`);
  const instances: Child[] = [];
  const webhooks: string[] = [];
  let model: MockLlmServer | undefined;
  let database: string | undefined;
  const waitFor = async <T>(
    probe: () => T | undefined | false,
    what: string,
    timeoutMs = 30_000,
  ): Promise<T> => {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const value = probe();
      if (value !== undefined && value !== false) return value;
      if (Date.now() > end) {
        const stderr = instances.map((child, i) => `--- gateway ${i} stderr ---\n${child.stderr}`);
        throw new Error(
          `Timed out after ${timeoutMs} ms waiting for ${what}\n` +
            [options.context?.() ?? "", ...stderr].join("\n"),
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const dispose = async () => {
    for (const child of instances) {
      if (child.process.exitCode === null) child.process.kill("SIGTERM");
    }
    for (const child of instances) await child.exited(10_000).catch(() => child.kill());
    await model?.close();
    dirs.remove();
    if (database && options.cluster) {
      const name = database;
      await withAdmin(
        options.cluster.url,
        (sql) => sql.unsafe(`DROP DATABASE IF EXISTS "${name}"`),
      );
    }
  };
  try {
    options.setup?.(dirs);
    model = await MockLlmServer.start({ script: options.model ?? echoModel });
    let store: string | undefined;
    if (options.cluster) {
      const name = `bub_test_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
      await withAdmin(options.cluster.url, (sql) => sql.unsafe(`CREATE DATABASE "${name}"`));
      database = name;
      const url = new URL(options.cluster.url);
      url.pathname = `/${name}`;
      store = url.href;
    }
    const count = options.cluster ? options.cluster.instances ?? 2 : 1;
    for (let i = 0; i < count; i++) {
      const child = startChild(
        runtimeCommand(BIN, ["gateway", "--enable-channel", options.channel]),
        {
          // One workspace for all instances: session tapes are named after its path.
          cwd: dirs.workspace,
          env: childEnv(dirs, {
            BUB_MODEL: "custom:x",
            BUB_API_BASE: model.url,
            BUB_API_KEY: `sk-gateway-${i}`,
            BUB_WEBHOOK_PORT: "0",
            BUB_DEBOUNCE_SECONDS: "0.05",
            BUB_MAX_WAIT_SECONDS: "0.5",
            ...(store ? { BUB_TAPE_STORE: store, BUB_CLUSTER_POLL_SECONDS: "0.1" } : {}),
            ...options.env,
          }),
        },
      );
      instances.push(child);
      if (options.webhooks === false) {
        await child.waitFor(`serving ${options.channel}`, { timeoutMs: 60_000 });
        webhooks.push("");
      } else {
        await child.waitFor(WEBHOOKS, { timeoutMs: 60_000 });
        webhooks.push(`${WEBHOOKS.exec(child.stdout)![1]}/webhooks/${options.channel}`);
      }
      if (store) await child.waitFor(/cluster instance/, { timeoutMs: 60_000 });
      if (options.ready) await waitFor(options.ready, `gateway ${i} to be ready`, 60_000);
    }
  } catch (error) {
    await dispose();
    throw error;
  }
  return {
    dirs,
    model,
    instances,
    process: instances[0]!,
    webhook: webhooks[0]!,
    webhooks,
    waitFor,
    modelRequest: (text, skip = 0, timeoutMs) =>
      waitFor(
        () =>
          model!.requests.slice(skip).find((request) =>
            JSON.stringify(userParts(request)).includes(text)
          ),
        `a model request about "${text}"`,
        timeoutMs,
      ),
    [Symbol.asyncDispose]: dispose,
  };
}
