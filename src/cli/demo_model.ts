/**
 * `--demo` of `bub run` and `bub chat`: the in-process mock model (`demoResponder` on a
 * `MockLlmServer` at 127.0.0.1), so a new user can try Bub without an API key. Loaded only when
 * `--demo` is given.
 *
 * @module
 */
import type { DemoModel } from "../builtin/cli_io.ts";

/** Starts the mock model with the demo script; dispose the result to stop it. */
export async function startDemoModel(): Promise<DemoModel> {
  const [{ MockLlmServer }, { demoResponder }] = await Promise.all([
    import("../testing/mock_llm_server.ts"),
    import("../testing/demo_responder.ts"),
  ]);
  return await MockLlmServer.start({ script: demoResponder });
}
