/**
 * The web console's HTTP app (Hono): the request gate (`Host`, origin, media type, body size; see
 * `request_gate.ts`), the Bearer token check, the JSON API, the event stream of a chat's turns
 * and the static page (served without the token: it holds no data, and reads the token from
 * the fragment of the printed URL). Hono is passed in so it is loaded only when a console starts.
 *
 * @module
 */
import type { Context, Hono } from "hono";
import { redactSecrets } from "../../_internal/redact.ts";
import { knownSecrets } from "../../_internal/secrets.ts";
import { BubError } from "../../kernel/errors.ts";
import type { TapeStore } from "../../tape/store.ts";
import { hasBearerToken } from "./auth.ts";
import { readJsonBody } from "./json_body.ts";
import { FAVICON_SVG, PAGE_CSS, PAGE_HTML, PAGE_JS } from "./page.ts";
import {
  changesState,
  checkHost,
  checkJsonRequest,
  checkOrigin,
  type Refusal,
} from "./request_gate.ts";
import { readSpillView } from "./spill_view.ts";
import { parseUploads } from "./uploads.ts";
import { tapeEntries, tapeHistory, tapeSummaries } from "./tape_view.ts";
import { checkSessionId, type TurnHub } from "./turn_hub.ts";
import { jsonSafe } from "./wire_events.ts";

/** The Content-Security-Policy of every response: no inline scripts, same-origin only. */
export const CONTENT_SECURITY_POLICY: string =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** What the app serves from. */
export interface ConsoleAppDeps {
  /** The Hono class (from `await import("hono")`). */
  Hono: typeof Hono;
  /** The access token (accepted only as `Authorization: Bearer`). */
  token: string;
  /** The `Host` values the console answers to (see `consoleHosts`); others get 403. */
  hosts: ReadonlySet<string>;
  /** The largest request body accepted, in bytes (larger gets 413). Default 1 MiB. */
  maxBodyBytes?: number;
  /** Runs and streams turns. */
  hub: TurnHub;
  /** The tape store (null outside the running scope). */
  tapeStore(): TapeStore | null;
  /** Session ids by tape name, for the tapes whose session the console knows. */
  sessions?(): ReadonlyMap<string, string>;
  /** Pending approval requests by tape name, for the names given (the list's badges). */
  waiting?(names: readonly string[]): Promise<ReadonlyMap<string, number>>;
  /** The tape name of web chat `chatId` (session `web:<chatId>`), or null when unknown. */
  chatTape?(chatId: string): string | null;
  /** Secret values replaced by `[REDACTED]` in every JSON body and event sent to the page. */
  secrets?: readonly string[];
  /** How often the event stream sends a keep-alive comment, in ms. Default 15000. */
  keepAliveMs?: number;
}

/** The default of {@link ConsoleAppDeps.maxBodyBytes}: 1 MiB. */
export const DEFAULT_MAX_BODY_BYTES: number = 1024 * 1024;

const STATUS: Record<string, 400 | 404 | 500> = { invalid_input: 400, not_found: 404 };
const STATUSES = new Set([400, 401, 403, 404, 413, 415]);
/** What GET serves without the token: the page, which holds no data. */
const PUBLIC_PATHS = new Set(["/", "/app.js", "/app.css", "/favicon.svg"]);

/** The JSON error response of `error` (a BubError's `details.status` picks the status). */
function fail(c: Context, error: unknown): Response {
  if (BubError.isInstance(error)) {
    const bub = error as BubError;
    const wanted = Number(bub.details?.status);
    const status = STATUSES.has(wanted) ? wanted as 400 : STATUS[bub.kind] ?? 500;
    return c.json({ error: { kind: bub.kind, message: bub.message } }, status);
  }
  const message = error instanceof Error ? error.message : String(error);
  return c.json({ error: { kind: "unknown", message } }, 500);
}

function refuse(c: Context, refusal: Refusal | null): Response | null {
  if (!refusal) return null;
  return c.json({ error: { kind: refusal.kind, message: refusal.message } }, refusal.status);
}

/** `response` with the headers every response carries. */
function secure(response: Response): Response {
  response.headers.set("content-security-policy", CONTENT_SECURITY_POLICY);
  response.headers.set("x-content-type-options", "nosniff");
  response.headers.set("referrer-policy", "no-referrer");
  response.headers.set("cache-control", "no-store");
  return response;
}

function storeOf(deps: ConsoleAppDeps): TapeStore {
  const store = deps.tapeStore();
  if (!store) throw new BubError("not_found", "No tape store: the framework is not running");
  return store;
}

/**
 * `json` (a JSON text) with the given secrets (also JSON-escaped) and every secret the process
 * knows now ({@link knownSecrets}: registered later ones included) redacted.
 */
function redact(deps: ConsoleAppDeps, json: string): string {
  const secrets = deps.secrets ?? [];
  return redactSecrets(json, [
    ...secrets,
    ...secrets.map((s) => JSON.stringify(s).slice(1, -1)),
    ...knownSecrets({ maxAgeMs: 1000 }),
  ]);
}

/**
 * The server-sent-events response of chat `chatId`'s turn events; it ends when the client
 * disconnects (the body is cancelled) or the console closes.
 */
function eventStream(
  deps: ConsoleAppDeps,
  chatId: string,
  open: Set<() => void>,
): Response {
  const encoder = new TextEncoder();
  let cleanup = (): void => {};
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (text: string): void => {
        try {
          controller.enqueue(encoder.encode(text));
        } catch { /* closed */ }
      };
      send(": bub\n\n");
      const unsubscribe = deps.hub.subscribe(chatId, (event) => {
        send(`event: ${event.kind}\ndata: ${redact(deps, JSON.stringify(event.data))}\n\n`);
      });
      const timer = setInterval(() => send(": keep-alive\n\n"), deps.keepAliveMs ?? 15_000);
      const end = (): void => {
        cleanup();
        try {
          controller.close();
        } catch { /* closed */ }
      };
      cleanup = () => {
        clearInterval(timer);
        unsubscribe();
        open.delete(end);
      };
      open.add(end);
    },
    cancel() {
      cleanup();
    },
  });
  return new Response(body, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      "x-accel-buffering": "no",
    },
  });
}

/** The console's app and a way to end its open event streams (before a server shutdown). */
export interface ConsoleApp {
  /** The Hono app. */
  readonly app: Hono;
  /** Ends every open event stream. */
  closeStreams(): void;
}

/** Builds the console's Hono app. */
export function createConsoleApp(deps: ConsoleAppDeps): ConsoleApp {
  const app = new deps.Hono();
  const open = new Set<() => void>();
  const maxBodyBytes = deps.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  app.use("*", async (c, next) => {
    const request = c.req.raw;
    const state = changesState(request.method);
    const refused = refuse(c, checkHost(request, deps.hosts)) ??
      (state ? refuse(c, checkOrigin(request, deps.hosts)) : null);
    if (refused) return secure(refused);
    const isPublic = !state && PUBLIC_PATHS.has(c.req.path);
    if (!isPublic && !hasBearerToken(deps.token, request.headers)) {
      const message = "Missing or wrong access token (send Authorization: Bearer <token>)";
      return secure(c.json({ error: { kind: "unauthorized", message } }, 401));
    }
    const bad = state ? refuse(c, checkJsonRequest(request, maxBodyBytes)) : null;
    if (bad) return secure(bad);
    await next();
    if (/^application\/json/.test(c.res.headers.get("content-type") ?? "")) {
      const headers = new Headers(c.res.headers);
      headers.delete("content-length");
      const { status } = c.res;
      c.res = new Response(redact(deps, await c.res.text()), { status, headers });
    }
    secure(c.res);
  });
  app.notFound((c) => c.json({ error: { kind: "not_found", message: "No such page" } }, 404));
  app.onError((error, c) => secure(fail(c, error)));
  app.get("/", (c) => c.html(PAGE_HTML));
  app.get(
    "/app.js",
    (c) => c.body(PAGE_JS, 200, { "content-type": "text/javascript; charset=utf-8" }),
  );
  app.get("/app.css", (c) => c.body(PAGE_CSS, 200, { "content-type": "text/css; charset=utf-8" }));
  app.get("/favicon.svg", (c) => c.body(FAVICON_SVG, 200, { "content-type": "image/svg+xml" }));
  app.post("/api/sessions/:id/messages", async (c) => {
    try {
      const body = await readJsonBody(c.req.raw, maxBodyBytes) as
        | { content?: unknown; media?: unknown }
        | null;
      const media = parseUploads(body?.media);
      if (
        !body || typeof body !== "object" || typeof body.content !== "string" ||
        (body.content.trim() === "" && media.length === 0)
      ) {
        throw new BubError(
          "invalid_input",
          'Expected a JSON body {"content": "<non-empty text>", "media"?: [{"name", "data_url"}]}',
        );
      }
      const chatId = c.req.param("id");
      const sent = await deps.hub.send(chatId, body.content, media);
      return c.json({ ...sent, session_id: `web:${chatId}` }, 202);
    } catch (error) {
      return fail(c, error);
    }
  });
  app.get("/api/sessions/:id/events", (c) => {
    try {
      return eventStream(deps, c.req.param("id"), open);
    } catch (error) {
      return fail(c, error);
    }
  });
  app.get("/api/sessions/:id/history", async (c) => {
    try {
      const chatId = checkSessionId(c.req.param("id"));
      const name = deps.chatTape?.(chatId) ?? null;
      if (name === null) return c.json({ entries: [], next: null });
      const before = c.req.query("before");
      const limit = c.req.query("limit");
      for (const [key, value] of [["before", before], ["limit", limit]] as const) {
        if (value !== undefined && !/^\d+$/.test(value)) {
          throw new BubError("invalid_input", `${key} must be a whole number, got ${value}`);
        }
      }
      // The event stream replays the chat's latest turn (a running one is on its own fork until
      // it ends): the newest page leaves a finished latest turn to it, so it shows once.
      const page = await tapeHistory(storeOf(deps), name, {
        before: before === undefined ? null : Number(before),
        limit: limit === undefined ? undefined : Number(limit),
        dropLastTurn: before === undefined && deps.hub.replaysFinishedTurn(chatId),
      });
      return c.json({ entries: jsonSafe(page.entries), next: page.next });
    } catch (error) {
      return fail(c, error);
    }
  });
  app.post("/api/sessions/:id/cancel", (c) => {
    try {
      return c.json({ cancelled: deps.hub.cancel(c.req.param("id")) });
    } catch (error) {
      return fail(c, error);
    }
  });
  app.get("/api/tapes", async (c) => {
    try {
      const limit = c.req.query("limit");
      if (limit !== undefined && !/^\d+$/.test(limit)) {
        throw new BubError("invalid_input", `limit must be an integer from 1 to 500, got ${limit}`);
      }
      return c.json(
        await tapeSummaries(storeOf(deps), {
          limit: limit === undefined ? undefined : Number(limit),
          before: c.req.query("before") ?? null,
          sessions: deps.sessions?.(),
          waiting: deps.waiting,
        }),
      );
    } catch (error) {
      return fail(c, error);
    }
  });
  app.get("/api/tapes/:name/entries", async (c) => {
    try {
      const entries = await tapeEntries(storeOf(deps), c.req.param("name"), c.req.query("q"));
      return c.json({ entries: jsonSafe(entries) });
    } catch (error) {
      return fail(c, error);
    }
  });
  app.get("/api/tapes/:name/spill/:handle", async (c) => {
    try {
      return c.json(await readSpillView(storeOf(deps), c.req.param("name"), c.req.param("handle")));
    } catch (error) {
      return fail(c, error);
    }
  });
  return { app, closeStreams: () => [...open].forEach((end) => end()) };
}
