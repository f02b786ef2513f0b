/**
 * The `openai-codex` provider: OpenAI models through a ChatGPT subscription (`bub login openai`).
 * Requests are OpenAI Responses requests (built by the AI SDK, as for `openai-responses`) sent to
 * the ChatGPT backend (`https://chatgpt.com/backend-api/codex/responses`, or `api_base`) with the
 * login's bearer, the `chatgpt-account-id` header and the headers the backend requires
 * (`OpenAI-Beta: responses=experimental`, `originator`). The backend keeps nothing (`store:
 * false`), takes the system prompt as `instructions` and sets the output length itself. A 401 is
 * answered by one refresh and one retry.
 *
 * @module
 */
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { isRecord } from "../../_internal/object.ts";
import { BubError } from "../../kernel/errors.ts";
import type { FetchLike } from "./_request_body.ts";
import type { OpenAIAuth, OpenAICredentials } from "./openai_auth.ts";

/** The default API base of the `openai-codex` provider. */
export const OPENAI_CODEX_BASE = "https://chatgpt.com/backend-api/codex";
/** The `originator` header Bub sends (as Python Bub does). */
const ORIGINATOR = "bub";
/** The instructions sent when a request has no system prompt. */
const DEFAULT_INSTRUCTIONS = "You are a helpful assistant.";
/** Body fields the backend refuses. */
const REFUSED = ["max_output_tokens", "max_tokens", "max_completion_tokens"];

/** The text of a Responses `content` (a string or input/output text parts). */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part) => isRecord(part) && typeof part.text === "string" ? part.text : "")
    .filter((text) => text !== "").join("\n");
}

/**
 * A Responses request body as the ChatGPT backend takes it: system and developer messages moved
 * into `instructions`, `store: false`, `stream: true`, the encrypted reasoning included (nothing
 * is stored to refer back to), the output limits dropped.
 */
export function codexRequestBody(body: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...body };
  const input = Array.isArray(body.input) ? body.input : [];
  const system: string[] = [];
  const rest: unknown[] = [];
  for (const item of input) {
    if (isRecord(item) && (item.role === "system" || item.role === "developer")) {
      const text = contentText(item.content);
      if (text !== "") system.push(text);
    } else rest.push(item);
  }
  out.input = rest;
  const given = typeof body.instructions === "string" ? [body.instructions] : [];
  out.instructions = [...given, ...system].join("\n\n") || DEFAULT_INSTRUCTIONS;
  out.store = false;
  out.stream = true;
  const include = Array.isArray(body.include) ? [...body.include] : [];
  if (!include.includes("reasoning.encrypted_content")) include.push("reasoning.encrypted_content");
  out.include = include;
  for (const key of REFUSED) delete out[key];
  return out;
}

function withCredentials(init: RequestInit | undefined, credentials: OpenAICredentials): Headers {
  if (credentials.accountId === null) {
    throw new BubError(
      "config",
      "The ChatGPT login names no account (chatgpt_account_id): run 'bub login openai' again",
    );
  }
  const headers = new Headers(init?.headers);
  headers.set("authorization", `Bearer ${credentials.accessToken}`);
  headers.set("chatgpt-account-id", credentials.accountId);
  headers.set("openai-beta", "responses=experimental");
  headers.set("originator", ORIGINATOR);
  headers.set("accept", "text/event-stream");
  return headers;
}

/**
 * Wraps `fetchFn` for the ChatGPT backend: each POST gets the login's credentials and the body
 * of {@link codexRequestBody}; a 401 refreshes the login once and sends the request again.
 */
export function codexFetch(auth: OpenAIAuth, fetchFn: FetchLike): FetchLike {
  return async (input, init) => {
    let body = init?.body;
    if (typeof body === "string" && body.startsWith("{")) {
      try {
        const parsed: unknown = JSON.parse(body);
        if (isRecord(parsed)) body = JSON.stringify(codexRequestBody(parsed));
      } catch { /* sent as it is */ }
    }
    const signal = init?.signal ?? undefined;
    const send = (credentials: OpenAICredentials) =>
      fetchFn(input, { ...init, body, headers: withCredentials(init, credentials) });
    const first = await auth.credentials({ signal });
    const response = await send(first);
    if (response.status !== 401) return response;
    await response.body?.cancel();
    return send(await auth.credentials({ signal, rejected: first.accessToken }));
  };
}

/** What {@link codexLanguageModel} needs. */
export interface CodexModelInit {
  /** The model id at the backend, e.g. `gpt-5.1-codex`. */
  model: string;
  /** The API base (default {@link OPENAI_CODEX_BASE}). */
  baseURL: string | null;
  /** Extra request headers (`client_args.headers`). */
  headers: Record<string, string>;
  /** Other provider constructor settings (`client_args`). */
  rest: Record<string, unknown>;
  /** The login. */
  auth: OpenAIAuth;
  /** The `fetch` underneath. */
  fetch: FetchLike;
}

/** The AI SDK Responses model of `openai-codex:<model>`, sending through {@link codexFetch}. */
export async function codexLanguageModel(init: CodexModelInit): Promise<LanguageModelV4> {
  const { createOpenAI } = await import("@ai-sdk/openai");
  return createOpenAI({
    ...init.rest,
    headers: init.headers,
    baseURL: (init.baseURL ?? OPENAI_CODEX_BASE).replace(/\/+$/, "").replace(/\/responses$/, ""),
    // The bearer is the login's, set per request by codexFetch.
    apiKey: "chatgpt-login",
    fetch: codexFetch(init.auth, init.fetch),
  }).responses(init.model);
}
