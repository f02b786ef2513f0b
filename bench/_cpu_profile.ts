/**
 * In-process V8 CPU profiling through `node:inspector` (works on Node and Deno) and a self-time
 * summary of the profile: per function of Bub's own sources, and per bucket (Bub, each npm
 * package, runtime internals, GC, idle).
 *
 * @module
 */
import { Session } from "node:inspector";

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
/** A V8 CPU profile (the `Profiler.stop` result). */
export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Starts a profile; the returned function stops it and returns the profile. */
export async function startProfile(intervalUs = 100): Promise<() => Promise<CpuProfile>> {
  const session = new Session();
  session.connect();
  const post = <T>(method: string, params: object = {}) =>
    new Promise<T>((resolve, reject) =>
      session.post(method, params, (error, result) => error ? reject(error) : resolve(result as T))
    );
  await post("Profiler.enable");
  await post("Profiler.setSamplingInterval", { interval: intervalUs });
  await post("Profiler.start");
  return async () => {
    const { profile } = await post<{ profile: CpuProfile }>("Profiler.stop");
    session.disconnect();
    return profile;
  };
}

/** Self time, in ms, by key. */
export type SelfTimes = Map<string, number>;

/** Where a frame's code lives: `bub` (this repo's src/ or bench/), an npm package, or the runtime. */
export function bucketOf(frame: CallFrame): string {
  const url = frame.url;
  if (!url) return frame.functionName.startsWith("(") ? frame.functionName : "(runtime, native)";
  const pkg = url.match(/node_modules\/(?:\.deno\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/);
  if (pkg) return `npm:${pkg[1]}`;
  if (/\/src\/[\w/.-]+\.ts/.test(url)) return "bub";
  if (/\/bench\/[\w/.-]+\.ts/.test(url)) return "(bench driver)";
  return `(runtime) ${url.split("/").slice(-2).join("/")}`;
}

/** Self time per Bub function (`file:line name`) and per bucket, in ms. */
export function selfTimes(profile: CpuProfile): { functions: SelfTimes; buckets: SelfTimes } {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const functions: SelfTimes = new Map();
  const buckets: SelfTimes = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    const node = byId.get(profile.samples[i]!);
    const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    if (node === undefined) continue;
    const bucket = bucketOf(node.callFrame);
    buckets.set(bucket, (buckets.get(bucket) ?? 0) + ms);
    if (bucket !== "bub") continue;
    const file = node.callFrame.url.match(/\/(src\/[\w/.-]+\.ts)/)![1];
    const key = `${file}:${node.callFrame.lineNumber + 1} ${
      node.callFrame.functionName || "(anon)"
    }`;
    functions.set(key, (functions.get(key) ?? 0) + ms);
  }
  return { functions, buckets };
}

/** The `limit` largest entries of `times`, divided by `turns`, as markdown table rows. */
export function topRows(times: SelfTimes, turns: number, limit: number): string[] {
  return [...times].sort((a, b) => b[1] - a[1]).slice(0, limit).map(([key, ms]) =>
    `| ${key} | ${(ms / turns).toFixed(3)} |`
  );
}

/**
 * Inclusive time, in ms, of every function whose name matches `names` (a frame is counted once per
 * sample even when it recurses), keyed by function name.
 */
export function inclusiveTimes(profile: CpuProfile, names: RegExp): SelfTimes {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) {
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const out: SelfTimes = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    const seen = new Set<string>();
    for (let id: number | undefined = profile.samples[i]; id !== undefined; id = parent.get(id)) {
      const frame = byId.get(id)!.callFrame;
      if (!frame.url.includes("/src/") || !names.test(frame.functionName)) continue;
      if (seen.has(frame.functionName)) continue;
      seen.add(frame.functionName);
      out.set(frame.functionName, (out.get(frame.functionName) ?? 0) + ms);
    }
  }
  return out;
}

/**
 * Time spent outside Bub's code (runtime, native calls, npm packages), in ms, keyed by the nearest
 * Bub function on the stack (`file:line name`) and the bucket it was spent in: who asked for it.
 */
export function outsideTimesByCaller(profile: CpuProfile): SelfTimes {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) {
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const out: SelfTimes = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    const leaf = byId.get(profile.samples[i]!);
    if (leaf === undefined) continue;
    const bucket = bucketOf(leaf.callFrame);
    if (bucket === "bub" || bucket.startsWith("(idle") || bucket.startsWith("(program")) continue;
    for (let id = parent.get(leaf.id); id !== undefined; id = parent.get(id)) {
      const frame = byId.get(id)!.callFrame;
      if (bucketOf(frame) !== "bub") continue;
      const file = frame.url.match(/\/(src\/[\w/.-]+\.ts)/)![1];
      const key = `${file}:${frame.lineNumber + 1} ${frame.functionName || "(anon)"} → ${bucket}`;
      out.set(key, (out.get(key) ?? 0) + ms);
      break;
    }
  }
  return out;
}
