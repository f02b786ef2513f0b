/**
 * Bub as an Agent Client Protocol agent: JSON-RPC 2.0, one message per line, over a pair of
 * byte streams (stdin/stdout in `bub acp`). Built on the official SDK (`@agentclientprotocol/sdk`,
 * imported only here). Sessions are Bub sessions and their tapes: `session/new` starts
 * `acp:<uuid>`, `session/list` shows every session of the workspace whatever its channel,
 * `session/load` replays a tape with its tool calls, `session/prompt` runs a turn through the
 * framework (hooks, tools, comma commands) and streams it as `session/update`s, and
 * `session/delete` archives a session's tape and removes it (`session_list.ts`).
 *
 * @module
 */
import { join } from "node:path";
import { redactKnownSecrets } from "../../_internal/secrets.ts";
import { BubError } from "../../kernel/errors.ts";
import { TapeQuery } from "../../tape/query.ts";
import type { TapeStore } from "../../tape/store.ts";
import { VERSION } from "../../version.ts";
import type { AcpHost, AcpServeOptions } from "./acp_options.ts";
import { editorFs, editorTerminals } from "./editor_client.ts";
import { historyUpdates } from "./history_updates.ts";
import { type PromptMedia, promptOf } from "./prompt_text.ts";
import {
  availableCommands,
  configCommand,
  configOptions,
  MODES,
  sessionOverrides,
  slashToComma,
} from "./session_config.ts";
import {
  deleteSessionTape,
  listAcpSessions,
  sessionTape,
  TAPE_SESSION_PREFIX,
} from "./session_list.ts";
import { promptTurn } from "./prompt_turn.ts";

export type { AcpHost, AcpServeOptions } from "./acp_options.ts";

interface AcpSession {
  readonly id: string;
  running: AbortController | null;
}

/** An error's message with known secrets redacted (it goes to the editor). */
function messageOf(error: unknown): string {
  return redactKnownSecrets(error instanceof Error ? error.message : String(error));
}

/**
 * Serves ACP on `options.input`/`options.output` until the client closes the input or `signal`
 * aborts; running turns are cancelled then.
 *
 * @example
 * ```ts no-eval
 * import process from "node:process";
 * import { Readable, Writable } from "node:stream";
 * import { BubFramework } from "@bub/core";
 * import { serveAcp } from "@bub/core/channels";
 * const framework = new BubFramework();
 * await serveAcp(framework, {
 *   input: Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
 *   output: Writable.toWeb(process.stdout),
 * });
 * ```
 */
export async function serveAcp(host: AcpHost, options: AcpServeOptions): Promise<void> {
  const acp = await import("@agentclientprotocol/sdk");
  const { methods, RequestError } = acp;
  const sessions = new Map<string, AcpSession>();
  const workspace = (): string => {
    if (!host.workspace) throw RequestError.internalError({}, "Bub has no workspace");
    return host.workspace;
  };
  const store = (): TapeStore => {
    const found = host.getTapeStore<TapeStore>();
    if (!found) throw RequestError.internalError({}, "Bub has no tape store");
    return found;
  };
  const known = (id: string): AcpSession => {
    const session = sessions.get(id);
    if (!session) {
      throw RequestError.invalidParams(
        { sessionId: id },
        `Unknown session ${JSON.stringify(id)}: create it (session/new) or load it first`,
      );
    }
    return session;
  };
  const open = (id: string): AcpSession => {
    const session = sessions.get(id) ?? { id, running: null };
    sessions.set(id, session);
    options.bridge?.open(id);
    return session;
  };
  const tapeExists = async (id: string): Promise<boolean> =>
    (await store().listTapes()).includes(sessionTape(id, workspace()));
  const models = options.models;
  // Plain JSON of the protocol's `SessionConfigOption[]` (typed there; `never` lets it through).
  const modesOf = (id: string) => ({
    currentModeId: options.bridge?.modeOf(id) ?? "default",
    availableModes: options.bridge ? [...MODES] : MODES.slice(0, 1),
  });
  const optionsOf = async (id: string): Promise<never[] | undefined> =>
    models
      ? configOptions(
        models,
        await sessionOverrides(store(), sessionTape(id, workspace())),
      ) as never[]
      : undefined;
  const notify = (
    client: { notify(method: string, params: unknown): Promise<void> },
    id: string,
    update: Record<string, unknown>,
  ) => client.notify(methods.client.session.update, { sessionId: id, update });
  /** The slash commands, once the client knows the session (after the response). */
  const announceCommands = (
    client: { notify(method: string, params: unknown): Promise<void> },
    id: string,
  ) => setTimeout(() => void notify(client, id, availableCommands()).catch(() => {}), 0);
  /** Runs `content` as one turn of session `id`, its events dropped (a comma command). */
  const runCommand = async (id: string, content: string, signal: AbortSignal) => {
    const chatId = id.startsWith("acp:") ? id.slice(4) : id;
    let output = "";
    const inbound = { channel: "acp", chatId, sessionId: id, content };
    for await (const event of host.streamInbound(inbound, { signal })) {
      if (event.kind === "text") output += event.data.delta;
    }
    return output;
  };

  const app = acp.agent({ name: "bub" })
    .onRequest(methods.agent.initialize, ({ params, client }) => {
      const capabilities = params.clientCapabilities;
      options.bridge?.connect(
        editorFs(client, methods, capabilities?.fs),
        capabilities?.terminal === true ? editorTerminals(client, methods) : null,
      );
      return {
        protocolVersion: acp.PROTOCOL_VERSION,
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { image: true, audio: true, embeddedContext: true },
          sessionCapabilities: { list: {}, resume: {}, close: {}, delete: {} },
        },
        agentInfo: { name: "bub", title: "Bub", version: VERSION },
        authMethods: options.setupProblem
          ? [{ id: "bub-config", name: "Configure Bub", description: options.setupProblem }]
          : [],
      };
    })
    .onRequest(methods.agent.session.new, async ({ client }) => {
      const session = open(`acp:${crypto.randomUUID()}`);
      announceCommands(client, session.id);
      return {
        sessionId: session.id,
        modes: modesOf(session.id),
        configOptions: await optionsOf(session.id),
      };
    })
    .onRequest(methods.agent.session.load, async ({ params, client }) => {
      if (!(await tapeExists(params.sessionId))) {
        throw RequestError.resourceNotFound(params.sessionId);
      }
      const session = open(params.sessionId);
      const entries = await new TapeQuery(sessionTape(session.id, workspace()), store()).all();
      for (const update of historyUpdates(entries, workspace())) {
        await notify(client, session.id, update);
      }
      announceCommands(client, session.id);
      return { modes: modesOf(session.id), configOptions: await optionsOf(session.id) };
    })
    .onRequest(methods.agent.session.resume, async ({ params, client }) => {
      if (!sessions.has(params.sessionId) && !(await tapeExists(params.sessionId))) {
        throw RequestError.resourceNotFound(params.sessionId);
      }
      open(params.sessionId);
      announceCommands(client, params.sessionId);
      return { modes: modesOf(params.sessionId), configOptions: await optionsOf(params.sessionId) };
    })
    .onRequest(methods.agent.session.setMode, ({ params }) => {
      const session = known(params.sessionId);
      if (!options.bridge || (params.modeId !== "default" && params.modeId !== "ask")) {
        throw RequestError.invalidParams(
          { modeId: params.modeId },
          `Unknown mode ${JSON.stringify(params.modeId)}: use ${
            modesOf(session.id).availableModes.map((m) => m.id).join(" or ")
          }`,
        );
      }
      options.bridge.setMode(session.id, params.modeId);
      return {};
    })
    .onRequest(methods.agent.session.setConfigOption, async ({ params, signal }) => {
      const session = known(params.sessionId);
      const current = await optionsOf(session.id);
      if (!current) throw RequestError.invalidParams({}, "This agent has no config options");
      const command = configCommand(current, params.configId, params.value);
      if ("error" in command) throw RequestError.invalidParams({}, command.error);
      await runCommand(session.id, command.command, signal);
      return { configOptions: (await optionsOf(session.id)) ?? [] };
    })
    .onRequest(methods.agent.session.list, async ({ params }) => {
      const page = await listAcpSessions(store(), params.cwd ?? workspace(), params.cursor);
      return { sessions: page.sessions, nextCursor: page.nextCursor };
    })
    .onRequest(methods.agent.session.close, ({ params }) => {
      const session = sessions.get(params.sessionId);
      session?.running?.abort(new DOMException("The editor closed the session", "AbortError"));
      sessions.delete(params.sessionId);
      options.bridge?.close(params.sessionId);
      return {};
    })
    .onRequest(methods.agent.session.delete, async ({ params }) => {
      const id = params.sessionId;
      if (sessions.get(id)?.running) {
        throw RequestError.invalidRequest(
          { sessionId: id },
          "A prompt is running in this session: cancel it before deleting the session",
        );
      }
      const exists = await tapeExists(id);
      if (!exists && !sessions.has(id)) throw RequestError.resourceNotFound(id);
      if (exists) {
        const home = host.home ? join(host.home, "tapes") : null;
        await deleteSessionTape(store(), sessionTape(id, workspace()), home);
      }
      sessions.delete(id);
      options.bridge?.close(id);
      return {};
    })
    .onNotification(methods.agent.session.cancel, ({ params }) => {
      sessions.get(params.sessionId)?.running?.abort(
        new DOMException("Cancelled by the editor", "AbortError"),
      );
    })
    .onRequest(methods.agent.session.prompt, async ({ params, client, signal }) => {
      const session = known(params.sessionId);
      if (options.setupProblem) {
        throw RequestError.authRequired({ setup: options.setupProblem }, options.setupProblem);
      }
      if (session.id.startsWith(TAPE_SESSION_PREFIX)) {
        throw RequestError.invalidParams(
          { sessionId: session.id },
          "This tape was written before Bub recorded its session id: it can be read here, " +
            "continue it from the channel it belongs to",
        );
      }
      if (session.running) {
        throw RequestError.invalidRequest(
          { sessionId: session.id },
          "A prompt is already running in this session: cancel it or wait for its end",
        );
      }
      let content: string;
      let media: PromptMedia[];
      try {
        const prompt = promptOf(params.prompt);
        content = slashToComma(prompt.text);
        media = prompt.media;
      } catch (error) {
        throw RequestError.invalidParams({ prompt: messageOf(error) }, messageOf(error));
      }
      const controller = new AbortController();
      session.running = controller;
      try {
        const stopReason = await promptTurn({
          streamInbound: (inbound, opts) => host.streamInbound(inbound, opts),
          sessionId: session.id,
          workspace: workspace(),
          store: store(),
          content,
          media,
          signal: AbortSignal.any([controller.signal, signal]),
          send: (update) => notify(client, session.id, update),
          contextWindow: options.contextWindow ?? null,
          watchTerminals: options.bridge
            ? (embed) => options.bridge!.watchTerminals(session.id, embed)
            : undefined,
          askPermission: async (params) =>
            (await client.request(methods.client.session.requestPermission, params as never, {
              cancellationSignal: controller.signal,
            }).catch(() => null))?.outcome ?? null,
        });
        return { stopReason };
      } catch (error) {
        const kind = BubError.isInstance(error) ? (error as BubError).kind : "internal";
        throw RequestError.internalError({ kind }, messageOf(error));
      } finally {
        session.running = null;
      }
    });

  const connection = app.connect(acp.ndJsonStream(options.output, options.input));
  const stop = () => connection.close();
  options.signal?.addEventListener("abort", stop, { once: true });
  try {
    await connection.closed;
  } finally {
    options.signal?.removeEventListener("abort", stop);
    options.bridge?.disconnect();
    for (const session of sessions.values()) {
      session.running?.abort(new DOMException("The editor disconnected", "AbortError"));
    }
  }
}
