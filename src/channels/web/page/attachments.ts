/**
 * The composer's attachments: files chosen with the Attach button, pasted or dropped on the
 * composer are read as base64 data URLs and listed as chips (name, size, a remove button) until
 * the message is sent with them as `media: [{name, data_url}]` (the server's body limit,
 * `console_max_body_bytes`, bounds the whole message).
 *
 * @module
 */
import { el } from "./dom.ts";

/** One file as the message body sends it. */
export interface Upload {
  name: string;
  data_url: string;
}

/** A size as the chips show it. */
export function sizeLabel(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

function readDataUrl(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error(`Cannot read ${file.name}`));
    reader.readAsDataURL(file);
  });
}

/** The pending attachments shown in `list`. */
export class Attachments {
  #list: HTMLElement;
  #files: Array<{ upload: Upload; size: number }> = [];
  #reading: Promise<unknown> = Promise.resolve();

  /** Attachments listed in `list`. */
  constructor(list: HTMLElement) {
    this.#list = list;
  }

  /** Reads `files` and adds them (a file without a type is sent as application/octet-stream). */
  add(files: Iterable<File>): Promise<void> {
    const reads = [...files].map(async (file) => {
      let url = await readDataUrl(file);
      // An unknown type reads as `data:;base64,` or `data:application/octet-stream;base64,`.
      if (url.startsWith("data:;")) url = `data:application/octet-stream;${url.slice(6)}`;
      const name = file.name || "pasted file";
      this.#files.push({ upload: { name, data_url: url }, size: file.size });
    });
    const done = Promise.all(reads).then(() => this.#render());
    this.#reading = Promise.all([this.#reading, done]);
    return done;
  }

  /** The files to send (after every read has finished). */
  async uploads(): Promise<Upload[]> {
    await this.#reading;
    return this.#files.map((file) => file.upload);
  }

  /** Whether any file is attached. */
  get empty(): boolean {
    return this.#files.length === 0;
  }

  /** Forgets every file (after the message was sent). */
  clear(): void {
    this.#files = [];
    this.#render();
  }

  #render(): void {
    const chips = this.#files.map((file, index) => {
      const chip = el("span", "chip", `${file.upload.name} (${sizeLabel(file.size)})`);
      const remove = el("button", "remove", "\u00d7");
      remove.setAttribute("type", "button");
      remove.setAttribute("aria-label", `Remove ${file.upload.name}`);
      remove.addEventListener("click", () => {
        this.#files.splice(index, 1);
        this.#render();
      });
      chip.append(remove);
      return chip;
    });
    this.#list.replaceChildren(...chips);
    this.#list.hidden = chips.length === 0;
  }
}
