/**
 * `mcp_servers:` parsing and `${VAR}` expansion: good entries become typed servers, every bad one
 * is a `config` BubError naming its key; MCP results become text, media or a tool error.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { BubError } from "../../../src/kernel/errors.ts";
import { expandServerConfig, parseMcpServers } from "../../../src/tools/mcp/config.ts";
import { toolResultValue } from "../../../src/tools/mcp/_result.ts";
import { validateConfig } from "../../../src/kernel/configure.ts";
import { registerBuiltinConfigSections } from "../../../src/builtin/settings.ts";

function configError(pattern: RegExp) {
  return (error: unknown) => {
    assert.ok(BubError.isInstance(error), `expected a BubError, got ${String(error)}`);
    assert.equal(error.kind, "config");
    assert.match(error.message, pattern);
    return true;
  };
}

describe("mcp_servers config", () => {
  test("stdio and Streamable HTTP entries parse in config order with defaults", () => {
    const servers = parseMcpServers({
      mcp_servers: {
        files: { command: "npx", args: ["-y", "server-files", 3], env: { ROOT: "/tmp", N: 1 } },
        api: { url: "https://example.test/mcp", headers: { Authorization: "Bearer x" } },
        bare: { command: "srv", cwd: "/srv", timeout_seconds: null, startup_timeout_seconds: 5 },
      },
    });
    assert.deepEqual(servers, [
      {
        transport: "stdio",
        name: "files",
        command: "npx",
        args: ["-y", "server-files", "3"],
        env: { ROOT: "/tmp", N: "1" },
        cwd: null,
      },
      {
        transport: "http",
        name: "api",
        url: "https://example.test/mcp",
        headers: { Authorization: "Bearer x" },
      },
      {
        transport: "stdio",
        name: "bare",
        command: "srv",
        args: [],
        env: {},
        cwd: "/srv",
        timeoutSeconds: null,
        startupTimeoutSeconds: 5,
      },
    ]);
    assert.deepEqual(parseMcpServers({}), []);
    assert.deepEqual(parseMcpServers({ mcp_servers: null }), []);
  });

  test("each malformed entry is a config error naming its key", () => {
    const cases: [unknown, RegExp][] = [
      [["x"], /mcp_servers must be a mapping of server names to servers, got \["x"\]/],
      [{ demo: "npx srv" }, /mcp_servers\.demo must be a mapping with `command` or `url`/],
      [{ demo: {} }, /mcp_servers\.demo needs exactly one of `command` \(stdio\) and `url`/],
      [{ demo: { command: "a", url: "http://x" } }, /mcp_servers\.demo needs exactly one/],
      [{ demo: { command: "" } }, /mcp_servers\.demo\.command must be a non-empty string, got ""/],
      [
        { demo: { command: "a", args: "b c" } },
        /mcp_servers\.demo\.args must be a list of strings/,
      ],
      [{ demo: { command: "a", env: { K: [1] } } }, /mcp_servers\.demo\.env\.K must be a string/],
      [
        { demo: { command: "a", headers: {} } },
        /mcp_servers\.demo\.headers is not a stdio server key/,
      ],
      [
        { demo: { url: "ftp://x" } },
        /mcp_servers\.demo\.url must be an http:\/\/ or https:\/\/ URL/,
      ],
      [{ demo: { url: "http://x", env: {} } }, /mcp_servers\.demo\.env is not a Streamable HTTP/],
      [{ "a.b": { command: "a" } }, /mcp_servers\.a\.b has a bad server name/],
      [
        { d: { url: "http://x", timeout_seconds: 0 } },
        /d\.timeout_seconds must be a number greater than 0, or null, got 0/,
      ],
    ];
    for (const [section, pattern] of cases) {
      assert.throws(() => parseMcpServers({ mcp_servers: section }), configError(pattern));
    }
  });

  test("config validation (onboarding, saving) checks mcp_servers and the MCP settings", () => {
    registerBuiltinConfigSections();
    validateConfig({ mcp_servers: { demo: { command: "srv" } }, mcp_timeout_seconds: 5 });
    assert.throws(
      () => validateConfig({ mcp_servers: { demo: { command: 1 } } }),
      configError(/mcp_servers\.demo\.command/),
    );
    assert.throws(
      () => validateConfig({ mcp_timeout_seconds: 0 }),
      configError(/mcp_timeout_seconds must be greater than 0/),
    );
  });

  test("${VAR} and ${VAR:-fallback} expand in env and headers values only", () => {
    const [stdio, http] = parseMcpServers({
      mcp_servers: {
        s: { command: "${NOT_EXPANDED}", env: { TOKEN: "${TOKEN}", MODE: "${MODE:-dev}" } },
        h: {
          url: "http://127.0.0.1:1/mcp",
          headers: { Authorization: "Bearer ${TOKEN}-${TOKEN}" },
        },
      },
    });
    const env = { TOKEN: "t1", MODE: "" };
    const s = expandServerConfig(stdio!, env);
    assert.ok(s.transport === "stdio");
    assert.equal(s.command, "${NOT_EXPANDED}");
    assert.deepEqual(s.env, { TOKEN: "t1", MODE: "dev" });
    const h = expandServerConfig(http!, env);
    assert.ok(h.transport === "http");
    assert.equal(h.headers.Authorization, "Bearer t1-t1");
    assert.throws(
      () => expandServerConfig(http!, {}),
      configError(/mcp_servers\.h\.headers\.Authorization uses \$\{TOKEN\}, but TOKEN is not set/),
    );
  });
});

describe("MCP tool results", () => {
  test("text joins; images, audio and resources become media; structuredContent stands in for no text", () => {
    assert.equal(
      toolResultValue("s.t", {
        content: [{ type: "text", text: "a" }, { type: "text", text: "b" }],
      }),
      "a\nb",
    );
    assert.equal(toolResultValue("s.t", { content: [], structuredContent: { n: 1 } }), '{"n":1}');
    assert.deepEqual(
      toolResultValue("s.t", {
        content: [
          { type: "image", data: "AAA=", mimeType: "image/png" },
          { type: "audio", data: "BBB=", mimeType: "audio/wav" },
          { type: "resource_link", uri: "file:///r.txt", name: "r.txt", mimeType: "text/plain" },
          { type: "resource", resource: { uri: "mem://n", text: "note" } },
          {
            type: "resource",
            resource: { uri: "mem://b", mimeType: "application/pdf", blob: "CCC=" },
          },
          { type: "text", text: "see attached" },
        ],
      }),
      {
        text: "see attached",
        media: [
          { type: "image", mimeType: "image/png", url: "data:image/png;base64,AAA=" },
          { type: "audio", mimeType: "audio/wav", url: "data:audio/wav;base64,BBB=" },
          { type: "document", mimeType: "text/plain", url: "file:///r.txt", filename: "r.txt" },
          {
            type: "document",
            mimeType: "text/plain",
            url: "mem://n",
            filename: "mem://n",
            text: "note",
          },
          {
            type: "document",
            mimeType: "application/pdf",
            url: "data:application/pdf;base64,CCC=",
            filename: "mem://b",
          },
        ],
      },
    );
  });

  test("an isError result is a tool error carrying the server's text", () => {
    assert.throws(
      () =>
        toolResultValue("s.t", { isError: true, content: [{ type: "text", text: "bad input" }] }),
      (error: unknown) =>
        BubError.isInstance(error) && error.kind === "tool" &&
        error.message === "Tool 's.t' failed: bad input",
    );
  });
});
