/**
 * A test MCP server built with the SDK: `add` (a + b), `fail` (always an error result), `picture`
 * (text plus an image), `slow` (waits `ms`), `big` (`bytes` bytes of text), `grandchild` (starts a `sleep` and answers its pid),
 * `exit` (ends the process) and `learn` (adds tool `name`, so the server sends `tools/list_changed`). Run as a script it
 * serves stdio; {@link startHttpMcpServer} serves Streamable HTTP on 127.0.0.1 in-process.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import process from "node:process";
import { z } from "zod";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp";
import type { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp";

// The SDK's export map gives types to specifiers without `.js` and code to those with it.
const sdk = {
  mcp: await import(
    "@modelcontextprotocol/sdk/server/mcp.js"
  ) as typeof import("@modelcontextprotocol/sdk/server/mcp"),
  stdio: await import(
    "@modelcontextprotocol/sdk/server/stdio.js"
  ) as typeof import("@modelcontextprotocol/sdk/server/stdio"),
  http: await import(
    "@modelcontextprotocol/sdk/server/streamableHttp.js"
  ) as typeof import("@modelcontextprotocol/sdk/server/streamableHttp"),
};

/** A tiny PNG (1×1). */
export const PIXEL_PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

/** Builds the server. */
export function createTestServer(): McpServer {
  const server = new sdk.mcp.McpServer({ name: "bub-test", version: "1.0.0" });
  server.registerTool("add", {
    description: "Add two numbers",
    inputSchema: { a: z.number(), b: z.number() },
  }, ({ a, b }: { a: number; b: number }) => ({
    content: [{ type: "text", text: String(a + b) }],
  }));
  server.registerTool("fail", {
    description: "Always fails",
    inputSchema: { reason: z.string().optional() },
  }, ({ reason }: { reason?: string }) => ({
    isError: true,
    content: [{ type: "text", text: `refused: ${reason ?? "no reason"}` }],
  }));
  server.registerTool("picture", { description: "A picture" }, () => ({
    content: [
      { type: "text", text: "a pixel" },
      { type: "image", data: PIXEL_PNG, mimeType: "image/png" },
    ],
  }));
  server.registerTool("slow", {
    description: "Answers after ms milliseconds",
    inputSchema: { ms: z.number() },
  }, async ({ ms }: { ms: number }, extra: { signal: AbortSignal }) => {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      extra.signal.addEventListener("abort", () => {
        clearTimeout(timer);
        resolve();
      });
    });
    return { content: [{ type: "text", text: `slept ${ms}` }] };
  });
  server.registerTool("big", {
    description: "Answers `bytes` bytes of text (lines of `x`) in one text block",
    inputSchema: { bytes: z.number() },
  }, ({ bytes }: { bytes: number }) => {
    const line = "x".repeat(1023) + "\n";
    const text = line.repeat(Math.floor(bytes / 1024)) + "y".repeat(bytes % 1024);
    return { content: [{ type: "text", text }] };
  });
  server.registerTool("grandchild", { description: "Starts a sleep, answers its pid" }, () => {
    const child = spawn("sleep", ["300"], { stdio: "ignore" });
    return { content: [{ type: "text", text: String(child.pid) }] };
  });
  server.registerTool("exit", { description: "Says bye on stderr and exits" }, () => {
    process.stderr.write("bye from the test server\n");
    setTimeout(() => process.exit(7), 50);
    return { content: [{ type: "text", text: "exiting" }] };
  });
  server.registerTool("learn", {
    description: "Adds a tool that answers its name",
    inputSchema: { name: z.string() },
  }, ({ name }: { name: string }) => {
    server.registerTool(name, { description: `Says ${name}` }, () => ({
      content: [{ type: "text", text: name }],
    }));
    return { content: [{ type: "text", text: `learned ${name}` }] };
  });
  return server;
}

/** A Streamable HTTP MCP server on 127.0.0.1. */
export interface HttpMcpServer extends AsyncDisposable {
  /** The endpoint, `http://127.0.0.1:<port>/mcp`. */
  readonly url: string;
  /** The headers of every request received. */
  readonly headers: Record<string, string | string[] | undefined>[];
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of req) chunks.push(chunk as Uint8Array);
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? JSON.parse(text) : undefined;
}

/** Starts a stateful Streamable HTTP server: one SDK server and transport per session. */
export async function startHttpMcpServer(): Promise<HttpMcpServer> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const headers: HttpMcpServer["headers"] = [];
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    headers.push({ ...req.headers });
    const id = req.headers["mcp-session-id"];
    const body = req.method === "POST" ? await readJson(req) : undefined;
    let transport = typeof id === "string" ? sessions.get(id) : undefined;
    if (!transport) {
      if (typeof id === "string") {
        res.writeHead(404).end();
        return;
      }
      const created: StreamableHTTPServerTransport = new sdk.http.StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sessionId: string) => void sessions.set(sessionId, created),
      });
      created.onclose = () => {
        if (created.sessionId) sessions.delete(created.sessionId);
      };
      await createTestServer().connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res, body);
  };
  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  const sockets = new Set<Socket>();
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  const port = await new Promise<number>((resolve) => {
    server.listen(0, "127.0.0.1", () => resolve((server.address() as { port: number }).port));
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    headers,
    async [Symbol.asyncDispose]() {
      for (const transport of sessions.values()) await transport.close().catch(() => {});
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

if (process.argv.includes("--mcp-stdio")) {
  const server = createTestServer();
  await server.connect(new sdk.stdio.StdioServerTransport());
  process.stderr.write(`bub-test MCP server ready pid=${process.pid}\n`);
}
