/**
 * Developer representations of thrown values, in the style of Python's `repr` (`Error('boom')`),
 * used for `details.error` of normalized tool failures.
 *
 * @module
 */

/** A string quoted like Python's `repr`: single quotes unless the text holds only `'`. */
export function quoteRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const char of text) {
    if (char === quote || char === "\\") out += `\\${char}`;
    else if (char === "\n") out += "\\n";
    else if (char === "\r") out += "\\r";
    else if (char === "\t") out += "\\t";
    else {
      const code = char.codePointAt(0)!;
      out += code < 0x20 || code === 0x7f ? `\\x${code.toString(16).padStart(2, "0")}` : char;
    }
  }
  return out + quote;
}

/**
 * The developer representation of a thrown value: `<Name>('<message>')` for errors (the error's
 * `name`, or its constructor name), `'<text>'` for strings, JSON for plain data, else `String()`.
 */
export function errorRepr(error: unknown): string {
  if (error instanceof Error) {
    const name = typeof error.name === "string" && error.name !== "" && error.name !== "Error"
      ? error.name
      : error.constructor?.name || "Error";
    return `${name}(${error.message === "" ? "" : quoteRepr(error.message)})`;
  }
  if (typeof error === "string") return quoteRepr(error);
  try {
    const json = JSON.stringify(error);
    if (typeof json === "string") return json;
  } catch {
    // fall through to String()
  }
  return String(error);
}
