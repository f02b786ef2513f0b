/**
 * The inbox route of a cluster instance: a cluster gateway names, for its framework, how an
 * inbound made by Bub itself (the resume of a turn whose approvals were decided in another chat)
 * enters the shared inbox, the way a channel's messages do. Whichever instance holds or claims
 * the session's lease then runs it under its fence. Without a route (one process) the caller
 * runs the inbound itself.
 *
 * @module
 */
import type { Envelope } from "../../kernel/envelope.ts";

/** Enqueues an inbound for its session. */
export type InboxRoute = (message: Envelope) => Promise<void>;

const routes = new WeakMap<object, InboxRoute>();

/**
 * Sets the inbox route of `framework` (a cluster gateway does, for the framework it serves).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { inboxRouteOf, setInboxRoute } from "./inbox_route.ts";
 * const framework = {};
 * const queued: unknown[] = [];
 * setInboxRoute(framework, (message) => Promise.resolve(void queued.push(message)));
 * await inboxRouteOf(framework)!({ content: "hi" });
 * assert.equal(queued.length, 1);
 * ```
 */
export function setInboxRoute(framework: object, route: InboxRoute): void {
  routes.set(framework, route);
}

/**
 * The inbox route of `framework`, or null when it serves no cluster.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { inboxRouteOf } from "./inbox_route.ts";
 * assert.equal(inboxRouteOf({}), null);
 * ```
 */
export function inboxRouteOf(framework: object): InboxRoute | null {
  return routes.get(framework) ?? null;
}
