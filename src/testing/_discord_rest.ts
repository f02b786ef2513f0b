/**
 * Private: the fake Discord's REST routes — what each `VERB /route` answers and how it changes the
 * fake's state (messages, threads, the gateway's THREAD_CREATE). The HTTP side (auth, rate limits,
 * the call log) stays in `fake_discord.ts`.
 *
 * @module
 */
import type { FakeDiscordGateway } from "./_discord_gateway.ts";
import {
  channelObject,
  messageObject,
  snowflake,
  type StoredMessage,
  userObject,
} from "./_discord_payloads.ts";

/** The fake's state a route reads and changes. */
export interface RestState {
  readonly applicationId: string;
  readonly guildId: string;
  readonly channelId: string;
  readonly messages: Map<string, StoredMessage>;
  readonly threads: Map<string, string>;
  readonly gateway: FakeDiscordGateway;
}

/** One REST call: its route (`VERB /path/{param}`), its path and its parameters. */
export interface RestCall {
  readonly route: string;
  readonly path: string;
  readonly params: Record<string, unknown>;
}

/** The answer to `call`: a JSON body, null for 204, undefined for an unknown route (404). */
export function answerRoute(state: RestState, call: RestCall): unknown {
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
