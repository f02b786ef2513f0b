/**
 * zod, for tool definitions and settings validation (both synchronous). Named imports only, so
 * a bundler keeps just these parts of zod (its locales are most of its import time).
 *
 * @module
 */
import {
  array,
  boolean,
  int,
  number,
  object,
  record,
  string,
  toJSONSchema,
  union,
  unknown,
} from "zod";

/** The parts of zod that Bub's own schemas use. */
export type Zod = Pick<
  typeof import("zod"),
  | "array"
  | "boolean"
  | "int"
  | "number"
  | "object"
  | "record"
  | "string"
  | "toJSONSchema"
  | "union"
  | "unknown"
>;

const ZOD: Zod = {
  array,
  boolean,
  int,
  number,
  object,
  record,
  string,
  toJSONSchema,
  union,
  unknown,
};

/** Returns the parts of zod that Bub's own schemas use. */
export function zod(): Zod {
  return ZOD;
}
