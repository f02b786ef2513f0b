/**
 * The inbox route of a cluster instance: a cluster gateway names, for its framework, how an
 * inbound made by Bub itself (the resume of a turn whose approvals were decided in another chat)
 * enters the shared inbox, the way a channel's messages do. Whichever instance holds or claims
 * the session's lease then runs it under its fence. An interface's session (the terminal, the web
 * console) stays with the instance its user is connected to: the route declines it, and the
 * caller runs the inbound itself, as it does without a route (one process).
 *
 * @module
 */
import type { Envelope } from "../../kernel/envelope.ts";

/** Enqueues an inbound for its session: true, or false when it must run here (an interface's). */
export type InboxRoute = (message: Envelope) => Promise<boolean>;

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
 * setInboxRoute(framework, (message) => Promise.resolve(queued.push(message) > 0));
 * assert.equal(await inboxRouteOf(framework)!({ content: "hi" }), true);
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
