/**
 * Private: the fake Discord's REST API — the HTTP side (CDN attachments, JSON or multipart
 * bodies, rate limits answered 429, the bot token checked, one thread per message, every call
 * logged as `VERB /route`) and what each route answers and how it changes the fake's state
 * (messages, threads, the gateway's THREAD_CREATE). The test-facing side is `fake_discord.ts`.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { readBody, reply } from "./_http.ts";
import type { FakeCallLog } from "./_fake_calls.ts";
import type { FakeDiscordGateway, GatewayIdentity } from "./_discord_gateway.ts";
import {
  channelObject,
  messageObject,
  multipartParams,
  routeOf,
  snowflake,
  type StoredMessage,
  userObject,
} from "./_discord_payloads.ts";

/** The fake's state the REST API reads and changes. */
export interface RestState extends GatewayIdentity {
  readonly messages: Map<string, StoredMessage>;
  /** Threads the bot opened: thread id → the message it was opened on. */
  readonly threads: Map<string, string>;
  readonly gateway: FakeDiscordGateway;
  /** Where every call is recorded. */
  readonly log: FakeCallLog;
  /** Routes to answer 429, with how many more times. */
  readonly rateLimited: Map<string, number>;
  /** The CDN's files, by attachment id. */
  readonly files: ReadonlyMap<string, { contentType: string; data: Uint8Array }>;
}

/** Answers one request to the fake's REST API (or CDN). */
export async function serveRest(
  state: RestState,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const url = new URL(req.url ?? "/", "http://127.0.0.1");
  const path = url.pathname.replace(/^\/api\/v\d+/, "");
  if (path.startsWith("/attachments/")) {
    const file = state.files.get(path.split("/")[3] ?? "");
    state.log.record({ method: "GET /attachments", params: { __path: path }, authorization: "" });
    res.writeHead(file ? 200 : 404, { "content-type": file?.contentType ?? "text/plain" });
    res.end(file?.data ?? "not found");
    return;
  }
  const route = routeOf(String(req.method), path);
  const raw = await readBody(req);
  const text = new TextDecoder().decode(raw);
  const type = String(req.headers["content-type"] ?? "");
  const params: Record<string, unknown> = type.startsWith("multipart/form-data")
    ? await multipartParams(raw, type)
    : text && text.startsWith("{")
    ? JSON.parse(text)
    : {};
  params.__path = path;
  const authorization = String(req.headers.authorization ?? "");
  const limited = state.rateLimited.get(route) ?? 0;
  if (limited > 0) {
    state.rateLimited.set(route, limited - 1);
    state.log.record({ method: route, params: { ...params, rateLimited: true }, authorization });
    res.writeHead(429, { "content-type": "application/json", "retry-after": "1" });
    res.end(JSON.stringify({ message: "You are being rate limited.", retry_after: 0.2 }));
    return;
  }
  const interaction = route.startsWith("POST /interactions/");
  if (!interaction && authorization !== `Bot ${state.botToken}`) {
    state.log.record({ method: route, params, authorization });
    return reply(res, 401, { message: "401: Unauthorized", code: 0 });
  }
  if (route === "POST /channels/{channel}/messages/{message}/threads") {
    const origin = path.split("/")[4]!;
    if (state.threads.has(origin)) {
      // Discord: one thread per message (another bot instance got there first).
      state.log.record({ method: route, params: { ...params, duplicate: true }, authorization });
      return reply(res, 400, {
        message: "A thread has already been created for this message",
        code: 160004,
      });
    }
  }
  const answer = answerRoute(state, { route, path, params });
  if (answer && typeof answer === "object" && "id" in answer) params.__id = answer.id;
  state.log.record({ method: route, params, authorization });
  if (answer === undefined) return reply(res, 404, { message: "Unknown route", code: 0 });
  if (answer === null) {
    res.writeHead(204);
    res.end();
    return;
  }
  reply(res, 200, answer);
}

/** One REST call: its route (`VERB /path/{param}`), its path and its parameters. */
interface RestCall {
  readonly route: string;
  readonly path: string;
  readonly params: Record<string, unknown>;
}

/** The answer to `call`: a JSON body, null for 204, undefined for an unknown route (404). */
function answerRoute(state: RestState, call: RestCall): unknown {
  const { route, path, params } = call;
  const ids = path.split("/").filter((part) => /^\d+$/.test(part));
  const botUser = userObject(state.applicationId, "bub", true);
  switch (route) {
    case "GET /gateway/bot":
      return {
        url: state.gateway.url,
        shards: 1,
        session_start_limit: { total: 1000, remaining: 999, reset_after: 0, max_concurrency: 1 },
      };
    case "GET /users/{user}":
      return botUser;
    case "POST /channels/{channel}/messages": {
      const stored = {
        id: snowflake(),
        channelId: ids[0]!,
        content: String(params.content ?? ""),
        components: (params.components as unknown[]) ?? [],
      };
      state.messages.set(stored.id, stored);
      return messageObject({ ...stored, author: botUser, guildId: state.guildId });
    }
    case "PATCH /channels/{channel}/messages/{message}": {
      const stored = state.messages.get(ids[1]!);
      if (!stored) return undefined;
      if ("content" in params) stored.content = String(params.content ?? "");
      if ("components" in params) stored.components = (params.components as unknown[]) ?? [];
      return messageObject({ ...stored, author: botUser, guildId: state.guildId });
    }
    case "POST /channels/{channel}/messages/{message}/threads": {
      // A thread started from a message has the message's id.
      const id = ids[1]!;
      state.threads.set(id, ids[1]!);
      const thread = channelObject(id, state.guildId, {
        parentId: ids[0]!,
        name: String(params.name ?? "thread"),
      });
      state.gateway.dispatch("THREAD_CREATE", { ...thread, newly_created: true });
      return thread;
    }
    case "GET /channels/{channel}": {
      const parent = state.threads.has(ids[0]!) ? state.channelId : undefined;
      return channelObject(ids[0]!, state.guildId, parent ? { parentId: parent } : {});
    }
    case "POST /channels/{channel}/typing":
    case "POST /interactions/{id}/{token}/callback":
      return null;
    default:
      return undefined;
  }
}
