/**
 * The browser login of `bub login openai`: an OAuth authorization-code flow with PKCE (S256) as
 * OpenAI's Codex CLI runs it. A callback server listens on 127.0.0.1 at the port the Codex client
 * registers (1455, else 1457); the user opens the authorize URL (printed, and opened in a browser
 * when there is one); the issuer redirects the browser to `http://localhost:<port>/auth/callback`
 * with a code and the state, and the code is exchanged, with the verifier, for tokens.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { BubError } from "../../kernel/errors.ts";
import {
  exchangeAuthorizationCode,
  OPENAI_AUTH_CLIENT_ID,
  type OpenAITokens,
} from "../../agent/providers/openai_auth.ts";
import type { FetchLike } from "../../agent/providers/provider_model_client.ts";

/** The callback ports OpenAI registers for the Codex client, in the order tried. */
export const CALLBACK_PORTS: readonly number[] = [1455, 1457];

/** Options of {@link callbackLogin}. */
export interface CallbackLoginOptions {
  /** The issuer base URL. */
  issuer: string;
  /** The callback port; null tries {@link CALLBACK_PORTS}. 0 picks a free one (tests). */
  port: number | null;
  /** Shows the authorize URL to the user (and opens it when it can); never throws. */
  showUrl: (url: string) => void;
  /** Longest wait for the browser to come back (ms). */
  timeoutMs: number;
  /** Cancels the login. */
  signal?: AbortSignal;
  /** The `fetch` of the token request. */
  fetch?: FetchLike;
}

function base64url(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("base64url");
}

/** A PKCE verifier (64 random bytes, base64url) and its S256 challenge. */
export async function pkcePair(): Promise<{ verifier: string; challenge: string }> {
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(64)));
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  return { verifier, challenge: base64url(new Uint8Array(digest)) };
}

/** The authorize URL of the Codex client. */
export function authorizeUrl(
  issuer: string,
  init: { redirectUri: string; challenge: string; state: string },
): string {
  const query = new URLSearchParams({
    response_type: "code",
    client_id: OPENAI_AUTH_CLIENT_ID,
    redirect_uri: init.redirectUri,
    scope: "openid profile email offline_access",
    code_challenge: init.challenge,
    code_challenge_method: "S256",
    id_token_add_organizations: "true",
    codex_cli_simplified_flow: "true",
    state: init.state,
    originator: "codex_cli_rs",
  });
  return `${issuer}/oauth/authorize?${query}`;
}

/** A listening callback server and its port. */
interface Listening {
  server: Server;
  port: number;
  sockets: Set<Socket>;
}

function listen(port: number): Promise<Listening> {
  const server = createServer();
  const sockets = new Set<Socket>();
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      const address = server.address();
      resolve({
        server,
        port: typeof address === "object" && address ? address.port : port,
        sockets,
      });
    });
  });
}

/** Listens on the first free port of `ports`; a clear error when every one is taken. */
async function listenOnOne(ports: readonly number[]): Promise<Listening> {
  for (const port of ports) {
    try {
      return await listen(port);
    } catch (error) {
      if ((error as { code?: unknown }).code !== "EADDRINUSE") throw error;
    }
  }
  const where = ports.map((port) => `127.0.0.1:${port}`).join(" and ");
  throw new BubError(
    "config",
    `Cannot receive the sign-in: ${where} ${ports.length > 1 ? "are" : "is"} in use ` +
      "(another 'bub login' or 'codex login' running?). Stop it, or sign in with " +
      "'bub login openai --device'",
    { ports: [...ports] },
  );
}

const PAGE = (title: string, text: string) =>
  `<!doctype html><meta charset="utf-8"><title>${title}</title>` +
  `<body style="font-family:sans-serif;margin:3em"><h1>${title}</h1><p>${text}</p></body>`;

function page(res: ServerResponse, status: number, title: string, text: string): void {
  res.writeHead(status, { "content-type": "text/html; charset=utf-8", connection: "close" });
  res.end(PAGE(title, text));
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Runs the browser login and returns the tokens. Rejects with a `BubError` when the ports are
 * taken, the issuer reports an error, the code exchange fails, or nothing arrives in time.
 */
export async function callbackLogin(options: CallbackLoginOptions): Promise<OpenAITokens> {
  const { verifier, challenge } = await pkcePair();
  const state = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const listening = await listenOnOne(options.port === null ? CALLBACK_PORTS : [options.port]);
  const redirectUri = `http://localhost:${listening.port}/auth/callback`;
  try {
    return await new Promise<OpenAITokens>((resolve, reject) => {
      const fail = (error: unknown) => reject(error);
      const timer = setTimeout(() =>
        fail(
          new BubError(
            "temporary",
            `No sign-in arrived within ${Math.round(options.timeoutMs / 1000)} s: run ` +
              "'bub login openai' again (--timeout <seconds> waits longer; --device needs no callback)",
          ),
        ), options.timeoutMs);
      const aborted = () => fail(options.signal?.reason ?? new Error("Login cancelled"));
      options.signal?.addEventListener("abort", aborted, { once: true });
      const cleanup = () => {
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", aborted);
      };
      listening.server.on("request", (req: IncomingMessage, res: ServerResponse) => {
        const url = new URL(req.url ?? "/", "http://localhost");
        if (url.pathname !== "/auth/callback") return page(res, 404, "Not found", "");
        const params = url.searchParams;
        if (params.get("state") !== state) {
          return page(res, 400, "State mismatch", "This sign-in was not started by this login.");
        }
        const error = params.get("error");
        if (error) {
          const reason = [error, params.get("error_description")].filter(Boolean).join(": ");
          page(res, 400, "Sign-in failed", escapeHtml(reason));
          cleanup();
          return fail(new BubError("config", `The sign-in was refused: ${reason}`));
        }
        const code = params.get("code");
        if (!code) return page(res, 400, "Sign-in failed", "The callback has no code.");
        exchangeAuthorizationCode({
          issuer: options.issuer,
          code,
          codeVerifier: verifier,
          redirectUri,
          fetch: options.fetch,
          signal: options.signal,
        }).then((tokens) => {
          page(res, 200, "Signed in to ChatGPT", "You can close this tab and return to Bub.");
          cleanup();
          resolve(tokens);
        }, (exchangeError: unknown) => {
          page(res, 500, "Sign-in failed", "The code could not be exchanged; see the terminal.");
          cleanup();
          fail(exchangeError);
        });
      });
      options.showUrl(authorizeUrl(options.issuer, { redirectUri, challenge, state }));
    });
  } finally {
    await new Promise<void>((resolve) => {
      listening.server.close(() => resolve());
      // Let the last page reach the browser before the connection goes.
      setTimeout(() => {
        for (const socket of listening.sockets) socket.destroy();
      }, 100).unref?.();
    });
  }
}
