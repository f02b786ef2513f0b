/**
 * The AWS event-stream binary framing (`application/vnd.amazon.eventstream`), as Amazon
 * Bedrock's `ConverseStream` sends it: per message a prelude (total length, headers length,
 * the prelude's CRC32), the headers, the payload and the whole message's CRC32.
 *
 * @module
 */

let table: Uint32Array | null = null;

/** CRC-32 (IEEE 802.3, as zlib computes it) of `bytes`. */
export function crc32(bytes: Uint8Array): number {
  if (table === null) {
    table = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      table[n] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (const byte of bytes) crc = table[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** One event-stream message of string headers (value type 7) and a payload. */
export function encodeEventStreamMessage(
  headers: Readonly<Record<string, string>>,
  payload: Uint8Array,
): Uint8Array {
  const encoder = new TextEncoder();
  const parts: Uint8Array[] = [];
  for (const [name, value] of Object.entries(headers)) {
    const nameBytes = encoder.encode(name);
    const valueBytes = encoder.encode(value);
    const header = new Uint8Array(1 + nameBytes.length + 1 + 2 + valueBytes.length);
    const view = new DataView(header.buffer);
    header[0] = nameBytes.length;
    header.set(nameBytes, 1);
    header[1 + nameBytes.length] = 7;
    view.setUint16(2 + nameBytes.length, valueBytes.length, false);
    header.set(valueBytes, 4 + nameBytes.length);
    parts.push(header);
  }
  const headersLength = parts.reduce((sum, part) => sum + part.length, 0);
  const total = 12 + headersLength + payload.length + 4;
  const message = new Uint8Array(total);
  const view = new DataView(message.buffer);
  view.setUint32(0, total, false);
  view.setUint32(4, headersLength, false);
  view.setUint32(8, crc32(message.subarray(0, 8)), false);
  let offset = 12;
  for (const part of parts) {
    message.set(part, offset);
    offset += part.length;
  }
  message.set(payload, offset);
  view.setUint32(total - 4, crc32(message.subarray(0, total - 4)), false);
  return message;
}

/** An `event` message of JSON `data` with the given `:event-type`. */
export function eventStreamEvent(eventType: string, data: unknown): Uint8Array {
  return encodeEventStreamMessage(
    {
      ":event-type": eventType,
      ":content-type": "application/json",
      ":message-type": "event",
    },
    new TextEncoder().encode(JSON.stringify(data)),
  );
}
