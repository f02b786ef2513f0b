/**
 * The network taken out of a turn: one real turn's response chunks recorded, then every later
 * call answered from them in memory (for `turn_inproc.ts` and `turn_cpu_ab.ts`: what remains
 * is Bub's work plus the runtime's `Response` and stream machinery).
 *
 * @module
 */

/** Runs `turn` with the real `fetch`, recording the response chunks of each of its calls. */
export async function recordReplies(turn: () => Promise<void>): Promise<Uint8Array[][]> {
  const real = globalThis.fetch;
  const replies: Uint8Array[][] = [];
  globalThis.fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const response = await real(input, init);
    const chunks: Uint8Array[] = [];
    const reader = response.body!.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
    }
    replies.push(chunks);
    return new Response(new Blob(chunks as BlobPart[]), { headers: response.headers });
  }) as typeof fetch;
  try {
    await turn();
  } finally {
    globalThis.fetch = real;
  }
  return replies;
}

/**
 * Replaces the global `fetch` with one answering the calls in `replies`' order, round and round,
 * with their recorded chunks as an event stream.
 */
export function replayFetch(replies: readonly Uint8Array[][]): void {
  let call = 0;
  const headers = { "content-type": "text/event-stream" };
  globalThis.fetch = ((_input: string | URL | Request, _init?: RequestInit) => {
    const chunks = replies[call++ % replies.length]!;
    let at = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (at < chunks.length) controller.enqueue(chunks[at++]!);
        else controller.close();
      },
    });
    return Promise.resolve(new Response(body, { headers }));
  }) as typeof fetch;
}
