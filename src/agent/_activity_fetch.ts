/**
 * A `fetch` wrapper that reports every arrival of bytes (the response, then each body chunk), so
 * a model call can tell a slow stream from a stalled one.
 *
 * @module
 */
import type { FetchLike } from "./_request_body.ts";

/**
 * `fetchFn` calling `onActivity` when the request goes out, when the response arrives and on
 * each chunk of its body.
 */
export function withActivity(fetchFn: FetchLike, onActivity?: () => void): FetchLike {
  if (!onActivity) return fetchFn;
  return async (input, init) => {
    onActivity();
    const response = await fetchFn(input, init);
    onActivity();
    if (!response.body) return response;
    const body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          onActivity();
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
