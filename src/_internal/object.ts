/**
 * Object shape checks shared by the modules that read untyped data (config, JSON, tapes, schemas).
 *
 * @module
 */

/**
 * Whether `value` is an object that is neither `null` nor an array (any prototype): a record of
 * keys to read. JSON objects, YAML mappings, class instances and schema objects all qualify.
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Whether `value` is a plain object: its prototype is `Object.prototype` or `null` (so not an
 * array, a `Map`, a `Date` or a class instance). Use it where such objects are copied or merged
 * key by key.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (!isRecord(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
