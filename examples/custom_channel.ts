/**
 * A custom channel: an HTTP endpoint on 127.0.0.1. `POST /message` with a JSON body
 * `{ "chat": "alice", "text": "hi" }` starts a turn; the reply comes back in the response.
 *
 *   deno run -A examples/custom_channel.ts
 *   curl -s -X POST localhost:8787/message -d '{"chat":"alice","text":"hi"}'
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import process from "node:process";
import {
  BubFramework,
  Channel,
  ChannelManager,
  ChannelMessage,
  contentOf,
  definePlugin,
  type Envelope,
  fieldOf,
  type MessageHandler,
} from "../mod.ts";

/** Each request waits for the outbound message of its chat. */
class HttpChannel extends Channel {
  override readonly name = "http";
  #handler: MessageHandler;
  #server: Server | null = null;
  #waiting = new Map<string, (text: string) => void>();
  readonly port: number;

  constructor(handler: MessageHandler, port = 8787) {
    super();
    this.#handler = handler;
    this.port = port;
  }

  override start(_stop: AbortController): Promise<void> {
    this.#server = createServer((req, res) => void this.#serve(req, res));
    return new Promise((resolve) => this.#server!.listen(this.port, "127.0.0.1", resolve));
  }

  override async stop(): Promise<void> {
    await new Promise((resolve) => this.#server?.close(resolve) ?? resolve(undefined));
  }

  override send(message: Envelope): Promise<void> {
    const chat = String(fieldOf(message, "chatId", "default"));
    this.#waiting.get(chat)?.(contentOf(message));
    this.#waiting.delete(chat);
    return Promise.resolve();
  }

  async #serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== "POST" || req.url !== "/message") {
      res.writeHead(404).end();
      return;
    }
    let body = "";
    for await (const chunk of req) body += chunk;
    let parsed: { chat?: unknown; text?: unknown };
    try {
      parsed = JSON.parse(body);
    } catch {
      res.writeHead(400, { "content-type": "text/plain" }).end("expected a JSON body\n");
      return;
    }
    const chat = String(parsed.chat ?? "default");
    const reply = new Promise<string>((resolve) => this.#waiting.set(chat, resolve));
    await this.#handler(
      new ChannelMessage({
        sessionId: `http:${chat}`,
        channel: "http",
        chatId: chat,
        content: String(parsed.text ?? ""),
      }),
    );
    res.writeHead(200, { "content-type": "text/plain" }).end(`${await reply}\n`);
  }
}

const bub = new BubFramework();
bub.loadBuiltinHooks();
bub.register(definePlugin({
  name: "http-channel",
  provideChannels: ({ messageHandler }) => [new HttpChannel(messageHandler)],
  runModel: ({ prompt }) => `echo: ${String(prompt)}`, // replace with the builtin agent by removing this line
}));
const manager = new ChannelManager(bub, { enabledChannels: ["http"] });
console.log("listening on http://127.0.0.1:8787/message (Ctrl-C to stop)");
const stop = new AbortController();
process.once("SIGINT", () => stop.abort());
await manager.listenAndRun({ signal: stop.signal });
