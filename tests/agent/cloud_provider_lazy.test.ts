/**
 * The cloud provider packages load only when their provider is used (issue 33 item 2): a Node
 * child records every module it resolves (`_load_recorder.ts`); `bub --help` and turns with the
 * other providers resolve none of `@ai-sdk/google`, `@ai-sdk/google-vertex`, `@ai-sdk/azure`,
 * `@ai-sdk/amazon-bedrock` (nor Google's auth library or the AWS signer), and a Gemini call
 * resolves `@ai-sdk/google` only (the check can see a package load).
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, "..", "..");
const CLOUD =
  /node_modules\/(@ai-sdk\/(google|google-vertex|azure|amazon-bedrock)|google-auth-library|aws4fetch|@smithy)\//;

/**
 * Node 24 (`--import` of a .ts file needs Node's type stripping): this process under Node, else
 * the toolchain's `node24` (a bare `node` may be an older system Node).
 */
const NODE = "Deno" in globalThis || "Bun" in globalThis
  ? [join(ROOT, ".tools", "bin", "node24")].find(existsSync) ?? "node"
  : process.execPath;

/** Runs `node --import _load_recorder.ts <args>`; its stdout and the packages it resolved. */
async function resolvedBy(args: string[]): Promise<{ stdout: string; cloud: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), "bub-lazy-test-"));
  try {
    const file = join(dir, "loaded.txt");
    const child = spawn(NODE, ["--import", join(HERE, "_load_recorder.ts"), ...args], {
      cwd: ROOT,
      env: { ...process.env, BUB_TEST_LOADED_FILE: file, BUB_HOME: dir, NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (chunk) => stdout += chunk);
    child.stderr!.on("data", (chunk) => stderr += chunk);
    const code = await new Promise<number | null>((done) => child.on("close", done));
    assert.equal(code, 0, stderr);
    const loaded = readFileSync(file, "utf8").split("\n");
    assert.ok(loaded.length > 10, "the recorder saw the modules");
    const cloud = new Set(
      loaded.map((url) => CLOUD.exec(url)?.[1]).filter((name) => name !== undefined),
    );
    return { stdout, cloud: [...cloud].sort() };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("cloud provider packages load lazily", () => {
  test("bub --help loads none of them", async () => {
    const { stdout, cloud } = await resolvedBy([join(ROOT, "src", "cli", "bin.ts"), "--help"]);
    assert.match(stdout, /Usage/);
    assert.deepEqual(cloud, []);
  });

  for (const model of ["openai:gpt-test", "anthropic:claude-test", "openai-responses:gpt-test"]) {
    test(`a call to ${model} loads none of them`, async () => {
      const child = join(HERE, "_provider_turn_child.ts");
      const { stdout, cloud } = await resolvedBy([child, model]);
      assert.equal(stdout.trim(), "answered");
      assert.deepEqual(cloud, []);
    });
  }

  test("a Gemini call loads @ai-sdk/google and none of the others", async () => {
    const child = join(HERE, "_provider_turn_child.ts");
    const { stdout, cloud } = await resolvedBy([child, "gemini:gemini-test"]);
    assert.equal(stdout.trim(), "answered");
    assert.deepEqual(cloud, ["@ai-sdk/google"]);
  });
});
