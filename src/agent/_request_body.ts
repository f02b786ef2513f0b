/**
 * A `fetch` wrapper that merges Bub's request arguments into the JSON body the AI SDK built.
 *
 * @module
 */

/** A `fetch`-compatible function. */
export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** Body fields merged around the SDK's body. */
export interface BodyExtras {
  /** Sent first: the SDK's own (managed) fields win over these. */
  before: Record<string, unknown>;
  /** Sent last: these win over everything. Plain objects are merged one level deep. */
  after: Record<string, unknown>;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Returns `{...before, ...body, ...after}` (objects in `after` merged into the body's). */
export function mergeBody(
  body: Record<string, unknown>,
  extras: BodyExtras,
): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...extras.before, ...body };
  for (const [key, value] of Object.entries(extras.after)) {
    const current = merged[key];
    merged[key] = isPlainObject(value) && isPlainObject(current) ? { ...current, ...value } : value;
  }
  return merged;
}

/**
 * Wraps `fetch` so every POST whose body is a JSON object string gets `extras` merged in.
 * Other requests pass through unchanged.
 */
export function withBodyExtras(fetchFn: FetchLike, extras: BodyExtras): FetchLike {
  if (Object.keys(extras.before).length === 0 && Object.keys(extras.after).length === 0) {
    return fetchFn;
  }
  return (input, init) => {
    if (init && typeof init.body === "string" && init.body.startsWith("{")) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(init.body);
      } catch {
        return fetchFn(input, init);
      }
      if (isPlainObject(parsed)) {
        return fetchFn(input, { ...init, body: JSON.stringify(mergeBody(parsed, extras)) });
      }
    }
    return fetchFn(input, init);
  };
}
