import type { PassThrough } from "node:stream";

/** How long output waits last before failing. */
export const WAIT_MS = 5000;

/** Collects everything written to `output`; the returned function waits until a text appears. */
export function outputWatcher(output: PassThrough): (needle: string) => Promise<void> {
  let text = "";
  const waiters = new Set<() => void>();
  output.on("data", (chunk: Uint8Array) => {
    text += new TextDecoder().decode(chunk);
    for (const wake of [...waiters]) wake();
  });
  return (needle) =>
    new Promise((resolve, reject) => {
      const check = (): boolean => {
        if (!text.includes(needle)) return false;
        clearTimeout(timer);
        waiters.delete(wake);
        resolve();
        return true;
      };
      const wake = (): void => void check();
      const timer = setTimeout(() => {
        waiters.delete(wake);
        reject(new Error(`Timed out waiting for ${JSON.stringify(needle)} in:\n${text}`));
      }, WAIT_MS);
      if (!check()) waiters.add(wake);
    });
}
