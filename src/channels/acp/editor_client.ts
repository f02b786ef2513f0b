/**
 * The editor's side of a connection as the bridge uses it: `fs/read_text_file` and
 * `fs/write_text_file` when the client offers them (`clientCapabilities.fs`), and the
 * `terminal/*` methods when it offers terminals (`clientCapabilities.terminal`).
 *
 * @module
 */
import type { AcpClientFs, AcpClientTerminal } from "./acp_bridge.ts";

/** The client side of a connection: requests to the editor. */
interface EditorRequests {
  request(method: string, params: unknown): Promise<unknown>;
}

/** The SDK's client method names this file uses. */
interface ClientMethods {
  client: {
    fs: Record<"readTextFile" | "writeTextFile", string>;
    terminal: Record<"create" | "output" | "waitForExit" | "kill" | "release", string>;
  };
}

/** The editor's file system: each method when `offered` says so, else null. */
export function editorFs(
  client: EditorRequests,
  methods: ClientMethods,
  offered: { readTextFile?: boolean; writeTextFile?: boolean } | null | undefined,
): AcpClientFs {
  const { fs } = methods.client;
  return {
    readText: offered?.readTextFile
      ? async (sessionId, path) =>
        ((await client.request(fs.readTextFile, { sessionId, path })) as { content: string })
          .content
      : null,
    writeText: offered?.writeTextFile
      ? async (sessionId, path, content) => {
        await client.request(fs.writeTextFile, { sessionId, path, content });
      }
      : null,
  };
}

/** The editor's `terminal/*` methods. */
export function editorTerminals(client: EditorRequests, methods: ClientMethods): AcpClientTerminal {
  const { terminal } = methods.client;
  const call = <T>(method: string, params: Record<string, unknown>) =>
    client.request(method, params) as Promise<T>;
  return {
    create: async (sessionId, spec) =>
      (await call<{ terminalId: string }>(terminal.create, { sessionId, ...spec })).terminalId,
    output: (sessionId, terminalId) => call(terminal.output, { sessionId, terminalId }),
    waitForExit: (sessionId, terminalId) => call(terminal.waitForExit, { sessionId, terminalId }),
    kill: async (sessionId, terminalId) =>
      void await call(terminal.kill, { sessionId, terminalId }),
    release: async (sessionId, terminalId) =>
      void await call(terminal.release, { sessionId, terminalId }),
  };
}
