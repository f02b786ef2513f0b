/**
 * Counts how a message travels through the kernel: one builtin turn (mock model) is run, and
 * (1) every call into a `KernelFramework` method made while the turn runs is counted (callbacks
 * from other files into the framework), (2) the source files on the async stack of the first
 * tape append and of the outbound dispatch are listed (V8 async stack traces; run under Deno or
 * Node). Usage: `scripts/tool deno run -A bench/turn_path.ts`.
 */
import { KernelFramework } from "../src/kernel/framework.ts";
import { Tape } from "../src/tape/tape.ts";
import { mockReply } from "../src/testing/mod.ts";
import { turnFixture } from "../tests/agent/_turn_fixture.ts";

Error.stackTraceLimit = 200;
const files = (stack: string): string[] => {
  const out: string[] = [];
  for (const match of stack.matchAll(/\/(src\/[\w/]+\.ts)/g)) {
    if (out.at(-1) !== match[1]) out.push(match[1]!);
  }
  return out.reverse();
};

await using fx = await turnFixture({
  script: [
    mockReply.text("one"),
    mockReply.toolCall("bash", { cmd: "true" }),
    mockReply.text("two"),
  ],
});
const calls = new Map<string, number>();
let active = false;
for (
  let proto = Object.getPrototypeOf(fx.bub);
  proto && proto !== Object.prototype;
  proto = Object.getPrototypeOf(proto)
) {
  if (proto !== KernelFramework.prototype) continue;
  for (const key of Object.getOwnPropertyNames(proto)) {
    const d = Object.getOwnPropertyDescriptor(proto, key)!;
    if (key === "constructor" || typeof d.value !== "function") continue;
    const original = d.value;
    Object.defineProperty(fx.bub, key, {
      configurable: true,
      value: function (this: unknown, ...args: unknown[]) {
        if (active) calls.set(key, (calls.get(key) ?? 0) + 1);
        return original.apply(this, args);
      },
    });
  }
}
let appendStack: string[] | null = null;
const seen = new Set<string>();
const append = Tape.prototype.append;
Tape.prototype.append = function (this: Tape, ...args: Parameters<Tape["append"]>) {
  if (active) {
    const stack = files(new Error().stack ?? "");
    appendStack ??= stack;
    for (const file of stack) seen.add(file);
  }
  return append.apply(this, args);
};
const outboundStacks: string[][] = [];
fx.bub.register({
  name: "probe",
  dispatchOutbound: () => {
    const stack = files(new Error().stack ?? "");
    outboundStacks.push(stack);
    for (const file of stack) seen.add(file);
    return null;
  },
});
await fx.turn("warm up");
calls.clear();
appendStack = null;
outboundStacks.length = 0;
active = true;
await fx.turn("hello");
active = false;
const total = [...calls.values()].reduce((a, b) => a + b, 0);
console.log(
  JSON.stringify({ frameworkCallsDuringTurn: total, byMethod: Object.fromEntries(calls) }),
);
console.log("to the tape:", (appendStack as string[] | null)?.join(" -> "));
console.log("files to the tape:", new Set(appendStack as string[] | null).size);
console.log("files on any tape-append or outbound stack:", seen.size, [...seen].sort().join(" "));
console.log("to the outbound:", outboundStacks[0]?.join(" -> "));
