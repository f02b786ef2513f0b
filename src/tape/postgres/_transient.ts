/**
 * Which PostgreSQL failures mean "the server is unreachable for now" (worth retrying): the
 * connection refused, reset or dropped, the server shutting down, starting or out of connection
 * slots. A query error (a constraint, bad SQL, a permission) is not one.
 *
 * @module
 */
import { hasErrorCode } from "../store/_retry.ts";

const TRANSIENT_CODES: ReadonlySet<string> = new Set([
  // The socket (Node's codes).
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
  // postgres.js: the connection closed under a query, was destroyed, or did not open in time.
  // (CONNECTION_ENDED is the pool's own end: the store was closed.)
  "CONNECTION_CLOSED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
  // SQLSTATE: connection exceptions, shutdown, startup, no free connection slot.
  "08000",
  "08001",
  "08003",
  "08004",
  "08006",
  "57P01",
  "57P02",
  "57P03",
  "53300",
]);

/** True when `error` (or a cause) says the server cannot be reached now. */
export function isPgTransient(error: unknown): boolean {
  return hasErrorCode(error, TRANSIENT_CODES);
}
