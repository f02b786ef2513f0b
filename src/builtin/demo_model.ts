/**
 * `--demo` of `bub run` and `bub chat`: the in-process mock model (`demoResponder` on a
 * `MockLlmServer` at 127.0.0.1), so a new user can try Bub without an API key.
 *
 * @module
 */
import type { BuiltinRuntime } from "./runtime.ts";

/**
 * Starts the mock model and points the runtime's model settings at it (`custom:demo`). Dispose
 * the result to stop the server.
 */
export async function startDemoModel(runtime: BuiltinRuntime): Promise<AsyncDisposable> {
  const [{ MockLlmServer }, { demoResponder }] = await Promise.all([
    import("../testing/mock_llm_server.ts"),
    import("../testing/demo_responder.ts"),
  ]);
  const server = await MockLlmServer.start({ script: demoResponder });
  runtime.overrideEnv({
    BUB_MODEL: "custom:demo",
    BUB_API_BASE: server.url,
    BUB_API_KEY: "demo",
  });
  return server;
}
