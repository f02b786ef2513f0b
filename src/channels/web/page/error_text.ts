/**
 * Errors as a person reads them (pure, no DOM): a wire error `{ kind, message, cause }` or a
 * tool's model-facing error record `{ kind, message, details: { error: "Name('…')" } }` becomes
 * lines of text — the message first, then each cause (`caused by Name: …`) — with the
 * developer representation `ShellCommandError('exit 2\noutput:…')` unquoted into
 * `ShellCommandError: exit 2` and real newlines.
 *
 * @module
 */

type Data = Record<string, unknown>;

const REPR = /^([A-Za-z_$][\w$.]*)\((['"])([\s\S]*)\2\)$/;
const ESCAPE = /\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|.)/g;
const SIMPLE: Record<string, string> = { n: "\n", r: "\r", t: "\t", "0": "\0" };

/** The text inside a Python-style quoted string, its escapes undone. */
function unescape(text: string): string {
  return text.replace(ESCAPE, (_, code: string) => {
    if (code.length > 1) return String.fromCharCode(parseInt(code.slice(1), 16));
    return SIMPLE[code] ?? code;
  });
}

/**
 * A developer representation made readable: `Name('text')` → `Name: text` (escapes undone), a
 * quoted string → its text; anything else unchanged.
 */
export function readableRepr(text: string): string {
  const match = REPR.exec(text.trim());
  if (match) return `${match[1]}: ${unescape(match[3]!)}`;
  const quoted = /^(['"])([\s\S]*)\1$/.exec(text.trim());
  return quoted ? unescape(quoted[2]!) : text;
}

/** Kinds that say nothing about a cause (a plain `Error`, a thrown non-error). */
const GENERIC_KINDS = new Set(["Error", "unknown"]);

const asData = (value: unknown): Data | null =>
  value !== null && typeof value === "object" ? value as Data : null;

/** The message of one error link: its `message`, else its text. */
function messageOf(item: Data | string): string {
  if (typeof item === "string") return readableRepr(item);
  if (typeof item.message === "string") return item.message;
  try {
    return JSON.stringify(item);
  } catch {
    return String(item);
  }
}

/**
 * The lines of an error and its causes (at most five links): the first line is the message;
 * each cause adds `caused by <kind>: <message>`; `details.error` (a tool failure's developer
 * representation) adds its readable form when it says more than the message.
 */
export function errorLines(error: unknown): string[] {
  const lines: string[] = [];
  let item: Data | string | null = typeof error === "string" ? error : asData(error);
  for (let i = 0; item !== null && i < 5; i++) {
    const text = messageOf(item);
    if (i === 0) lines.push(text);
    else {
      const named = typeof item === "object" && typeof item.kind === "string" &&
        !GENERIC_KINDS.has(item.kind);
      const kind = named ? ` ${(item as Data).kind}` : "";
      lines.push(`caused by${kind}: ${text}`);
    }
    const details = typeof item === "object" ? asData(item.details) : null;
    if (typeof details?.error === "string") {
      const readable = readableRepr(details.error);
      if (!lines.some((line) => line.endsWith(readable))) lines.push(readable);
    }
    const cause: unknown = typeof item === "object" ? item.cause : undefined;
    item = typeof cause === "string" ? cause : asData(cause);
  }
  return lines.length ? lines.join("\n").split("\n") : [];
}

/** True when `value` is a tool's model-facing error record (`{ kind, message, … }`). */
export function isErrorRecord(value: unknown): boolean {
  const data = asData(value);
  return data !== null && typeof data.kind === "string" && typeof data.message === "string" &&
    Object.keys(data).every((key) => key === "kind" || key === "message" || key === "details");
}
