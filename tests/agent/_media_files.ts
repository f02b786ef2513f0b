/**
 * Small real media files for the media tests, built in code: a PNG pixel, an MPEG-1 Layer III
 * frame, a PCM WAV of a given length, an Ogg Opus voice note of a given length (silent Opus
 * frames in CRC-checked Ogg pages, as Telegram sends voice notes), an MP4 `ftyp` box and a
 * one-page PDF.
 *
 * @module
 */

/** Bytes → base64. */
export function base64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** A 1×1 PNG. */
export const PNG_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

/** The bytes of {@link PNG_BASE64}. */
export function pngBytes(): Uint8Array {
  return Uint8Array.from(atob(PNG_BASE64), (c) => c.charCodeAt(0));
}

/** One silent MPEG-1 Layer III frame (128 kbit/s, 44.1 kHz): 417 bytes. */
export function mp3Frame(): Uint8Array {
  const frame = new Uint8Array(417);
  frame.set([0xff, 0xfb, 0x90, 0x64]);
  return frame;
}

/** A 16-bit mono PCM WAV at 8 kHz, `seconds` long (a 440 Hz tone). */
export function wavFile(seconds: number): Uint8Array {
  const rate = 8000;
  const samples = Math.round(seconds * rate);
  const out = new Uint8Array(44 + samples * 2);
  const view = new DataView(out.buffer);
  const text = (at: number, value: string) => {
    for (let i = 0; i < value.length; i++) out[at + i] = value.charCodeAt(i);
  };
  text(0, "RIFF");
  view.setUint32(4, 36 + samples * 2, true);
  text(8, "WAVE");
  text(12, "fmt ");
  view.setUint32(16, 16, true);
  view.setUint16(20, 1, true); // PCM
  view.setUint16(22, 1, true); // mono
  view.setUint32(24, rate, true);
  view.setUint32(28, rate * 2, true); // byte rate
  view.setUint16(32, 2, true);
  view.setUint16(34, 16, true);
  text(36, "data");
  view.setUint32(40, samples * 2, true);
  for (let i = 0; i < samples; i++) {
    view.setInt16(44 + i * 2, Math.round(8000 * Math.sin(2 * Math.PI * 440 * i / rate)), true);
  }
  return out;
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let r = i << 24;
    for (let j = 0; j < 8; j++) r = r & 0x80000000 ? (r << 1) ^ 0x04c11db7 : r << 1;
    table[i] = r >>> 0;
  }
  return table;
})();

function oggPage(
  packets: Uint8Array[],
  granule: bigint,
  sequence: number,
  flags: number,
): Uint8Array {
  const lacing: number[] = [];
  for (const packet of packets) {
    let left = packet.length;
    while (left >= 255) {
      lacing.push(255);
      left -= 255;
    }
    lacing.push(left);
  }
  const bodyLength = packets.reduce((sum, packet) => sum + packet.length, 0);
  const page = new Uint8Array(27 + lacing.length + bodyLength);
  const view = new DataView(page.buffer);
  page.set([0x4f, 0x67, 0x67, 0x53]); // "OggS"
  page[5] = flags;
  view.setBigUint64(6, granule, true);
  view.setUint32(14, 0x4255_4221, true); // stream serial
  view.setUint32(18, sequence, true);
  page[26] = lacing.length;
  page.set(lacing, 27);
  let at = 27 + lacing.length;
  for (const packet of packets) {
    page.set(packet, at);
    at += packet.length;
  }
  let crc = 0;
  for (const byte of page) crc = ((crc << 8) ^ CRC_TABLE[((crc >>> 24) ^ byte) & 0xff]!) >>> 0;
  view.setUint32(22, crc, true);
  return page;
}

/** An Ogg Opus file of `seconds` of silence (20 ms frames), as a Telegram voice note. */
export function oggOpusFile(seconds: number): Uint8Array {
  const head = new Uint8Array(19);
  head.set(new TextEncoder().encode("OpusHead"));
  head[8] = 1; // version
  head[9] = 1; // channels
  new DataView(head.buffer).setUint16(10, 312, true); // pre-skip
  new DataView(head.buffer).setUint32(12, 48_000, true);
  const tags = new TextEncoder().encode("OpusTags\x03\x00\x00\x00bub\x00\x00\x00\x00");
  const pages = [oggPage([head], 0n, 0, 0x02), oggPage([tags], 0n, 1, 0)];
  const frames = Math.round(seconds * 50);
  const silence = new Uint8Array([0xf8, 0xff, 0xfe]);
  let done = 0;
  for (let sequence = 2; done < frames; sequence++) {
    const count = Math.min(200, frames - done);
    done += count;
    const last = done === frames;
    const granule = BigInt(312 + done * 960);
    pages.push(oggPage(Array(count).fill(silence), granule, sequence, last ? 0x04 : 0));
  }
  const out = new Uint8Array(pages.reduce((sum, page) => sum + page.length, 0));
  let at = 0;
  for (const page of pages) {
    out.set(page, at);
    at += page.length;
  }
  return out;
}

/** An MP4 file's `ftyp` box (24 bytes). */
export function mp4File(): Uint8Array {
  return new Uint8Array([
    0,
    0,
    0,
    24,
    0x66,
    0x74,
    0x79,
    0x70,
    0x69,
    0x73,
    0x6f,
    0x6d,
    0,
    0,
    2,
    0,
    0x69,
    0x73,
    0x6f,
    0x6d,
    0x69,
    0x73,
    0x6f,
    0x32,
  ]);
}

/** A one-page PDF saying "hello". */
export function pdfFile(): Uint8Array {
  return new TextEncoder().encode(
    "%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n" +
      "2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n" +
      "3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 200]/Contents 4 0 R>>endobj\n" +
      "4 0 obj<</Length 35>>stream\nBT /F1 12 Tf 20 100 Td (hello) Tj ET\nendstream endobj\n" +
      "trailer<</Root 1 0 R>>\n%%EOF\n",
  );
}

type Audio<F extends string> = { type: "input_audio"; input_audio: { data: string; format: F } };

/** What {@link mediaFixtures} gives: each file base64, and as the part a user sends. */
export interface MediaFixtures {
  MP3: string;
  OGG: string;
  WAV: string;
  MP4: string;
  PDF: string;
  IMAGE_PART: { type: "image_url"; image_url: { url: string } };
  MP3_PART: Audio<"mp3">;
  OGG_PART: Audio<"ogg">;
  WAV_PART: Audio<"wav">;
  MP4_PART: { type: "video_url"; video_url: { url: string } };
  PDF_PART: { type: "file"; file: { filename: string; file_data: string } };
  /** The six parts, image first. */
  MEDIA: MediaFixtures[`${"IMAGE" | "MP3" | "OGG" | "WAV" | "MP4" | "PDF"}_PART`][];
}

/**
 * A PNG pixel, an mp3 frame, a 12 s Ogg voice note, a 2.5 s WAV, an MP4 and a PDF
 * (`report.pdf`), base64 and as content parts.
 */
export function mediaFixtures(): MediaFixtures {
  const [MP3, OGG, WAV, MP4, PDF] = [
    mp3Frame(),
    oggOpusFile(12),
    wavFile(2.5),
    mp4File(),
    pdfFile(),
  ]
    .map(base64) as [string, string, string, string, string];
  const audio = <F extends string>(data: string, format: F): Audio<F> => ({
    type: "input_audio",
    input_audio: { data, format },
  });
  const parts: Omit<MediaFixtures, "MP3" | "OGG" | "WAV" | "MP4" | "PDF" | "MEDIA"> = {
    IMAGE_PART: { type: "image_url", image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
    MP3_PART: audio(MP3, "mp3"),
    OGG_PART: audio(OGG, "ogg"),
    WAV_PART: audio(WAV, "wav"),
    MP4_PART: { type: "video_url", video_url: { url: `data:video/mp4;base64,${MP4}` } },
    PDF_PART: {
      type: "file",
      file: { filename: "report.pdf", file_data: `data:application/pdf;base64,${PDF}` },
    },
  };
  return { MP3, OGG, WAV, MP4, PDF, ...parts, MEDIA: Object.values(parts) };
}
