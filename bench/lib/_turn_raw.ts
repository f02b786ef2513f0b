/**
 * The raw baselines of `turn.bench.ts`: a hand-written `fetch` + SSE client doing a turn's two
 * calls with a small payload, the same client sending recorded request bytes (Bub's own), and the
 * recorder that captures the bodies Bub sends.
 *
 * @module
 */

/** One measured turn. */
export type Turn = (i: number) => Promise<void>;

/** The streamed text every turn must end with. */
export const TEXT: readonly string[] = ["Hello ", "from ", "the ", "bench."];

async function* sseData(response: Response): AsyncGenerator<string> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      for (const line of event.split("\n")) {
        if (line.startsWith("data: ")) yield line.slice(6);
      }
    }
  }
}

type Call = { id: string; type: string; function: { name: string; arguments: string } };

/** POSTs `body` to `/chat/completions` and assembles the streamed text and tool calls. */
async function call(url: string, body: string): Promise<{ text: string; calls: Call[] }> {
  const response = await fetch(`${url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer sk-bench" },
    body,
  });
  let text = "";
  const calls: Call[] = [];
  for await (const data of sseData(response)) {
    if (data === "[DONE]") break;
    const delta = JSON.parse(data).choices?.[0]?.delta ?? {};
    if (delta.content) text += delta.content;
    for (const piece of delta.tool_calls ?? []) {
      const target = calls[piece.index] ??= {
        id: "",
        type: "function",
        function: { name: "", arguments: "" },
      };
      if (piece.id) target.id = piece.id;
      if (piece.function?.name) target.function.name += piece.function.name;
      if (piece.function?.arguments) target.function.arguments += piece.function.arguments;
    }
  }
  return { text, calls };
}

/** The raw client with a small payload (one tool, a one-line system prompt). */
export function rawTurn(url: string): Turn {
  const tools = [{
    type: "function",
    function: {
      name: "bench_noop",
      description: "Does nothing",
      parameters: { type: "object", properties: { value: { type: "number" } } },
    },
  }];
  const send = (messages: unknown[]) =>
    call(url, JSON.stringify({ model: "bench", messages, tools, stream: true, max_tokens: 1024 }));
  return async (i) => {
    const messages: unknown[] = [{ role: "system", content: "You are a bench." }, {
      role: "user",
      content: `turn ${i}`,
    }];
    const first = await send(messages);
    const results = first.calls.map((c) => {
      JSON.parse(c.function.arguments);
      return "ok";
    });
    messages.push({ role: "assistant", content: null, tool_calls: first.calls });
    first.calls.forEach((c, k) =>
      messages.push({ role: "tool", tool_call_id: c.id, content: results[k] })
    );
    const second = await send(messages);
    if (second.text !== TEXT.join("")) throw new Error(`raw: unexpected text ${second.text}`);
  };
}

/**
 * The raw client sending recorded bodies (a turn's two calls, as Bub sent them): the same bytes
 * on the wire, none of Bub's work. The first call's tool arguments are parsed as a tool would.
 */
export function rawBytesTurn(url: string, bodies: readonly string[]): Turn {
  if (bodies.length !== 2) throw new Error(`expected 2 recorded bodies, got ${bodies.length}`);
  return async () => {
    const first = await call(url, bodies[0]!);
    for (const c of first.calls) JSON.parse(c.function.arguments);
    const second = await call(url, bodies[1]!);
    if (second.text !== TEXT.join("")) throw new Error(`raw bytes: unexpected ${second.text}`);
  };
}

/**
 * Runs `run` with the global `fetch` recording every request body given as text or bytes (the
 * provider client looks the global `fetch` up per call) and returns the bodies as text.
 */
export async function recordBodies(run: () => Promise<void>): Promise<string[]> {
  const bodies: string[] = [];
  const real = globalThis.fetch;
  globalThis.fetch = ((input: string | URL | Request, init?: RequestInit) => {
    if (typeof init?.body === "string") bodies.push(init.body);
    else if (init?.body instanceof Uint8Array) bodies.push(new TextDecoder().decode(init.body));
    return real(input, init);
  }) as typeof fetch;
  try {
    await run();
  } finally {
    globalThis.fetch = real;
  }
  return bodies;
}
