import { describe, test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { fetchWeb, webFetchTool } from "../../../src/tools/builtin/web.ts";
import { toolContext } from "./_helpers.ts";

interface Served {
  base: string;
  requests: { url: string; headers: IncomingHttpHeaders }[];
}

/** A real HTTP server on 127.0.0.1 routing by path; closed after the test. */
async function serve(
  t: TestContext,
  routes: Record<string, (res: ServerResponse) => void>,
): Promise<Served> {
  const requests: Served["requests"] = [];
  const server = createServer((req, res) => {
    requests.push({ url: req.url ?? "", headers: req.headers });
    const route = routes[req.url ?? ""];
    if (route) route(res);
    else res.writeHead(404, "Not Found").end("missing");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    })
  );
  const { port } = server.address() as AddressInfo;
  return { base: `http://127.0.0.1:${port}`, requests };
}

describe("web.fetch", () => {
  test("sends accept: text/markdown merged with custom headers and returns the body", async (t) => {
    const { base, requests } = await serve(t, {
      "/doc": (res) =>
        res.writeHead(200, { "content-type": "text/markdown; charset=utf-8" }).end("# Tïtle\n"),
    });
    const tool = webFetchTool();
    assert.equal(await tool.run({ url: `${base}/doc` }, toolContext()), "# Tïtle\n");
    assert.equal(requests[0]!.headers.accept, "text/markdown");
    await tool.run(
      { url: `${base}/doc`, headers: { "X-Trace": "7", Accept: "text/html" } },
      toolContext(),
    );
    assert.equal(requests[1]!.headers["x-trace"], "7");
    assert.equal(requests[1]!.headers.accept, "text/html", "custom headers override the default");
  });

  test("the structured result carries url, status and content type", async (t) => {
    const { base } = await serve(t, {
      "/latin": (res) =>
        res.writeHead(200, { "content-type": "text/plain; charset=iso-8859-1" }).end(
          new Uint8Array([0x63, 0x61, 0x66, 0xe9]),
        ),
    });
    assert.deepEqual(await fetchWeb({ url: `${base}/latin` }), {
      url: `${base}/latin`,
      status: 200,
      content_type: "text/plain; charset=iso-8859-1",
      content: "café",
    });
  });

  test("a non-2xx status fails with the status", async (t) => {
    const { base } = await serve(t, {});
    await assert.rejects(webFetchTool().run({ url: `${base}/nope` }, toolContext()), {
      message: `Cannot fetch ${base}/nope: HTTP 404 Not Found`,
    });
  });

  test("bodies over the size cap fail, whether declared or streamed", async (t) => {
    const big = "x".repeat(4096);
    const { base } = await serve(t, {
      "/declared": (res) => res.writeHead(200, { "content-length": String(big.length) }).end(big),
      "/chunked": (res) => {
        res.writeHead(200, { "content-type": "text/plain" });
        for (let i = 0; i < 8; i++) res.write(big.slice(0, 512));
        res.end();
      },
    });
    await assert.rejects(fetchWeb({ url: `${base}/declared` }, { maxBytes: 1000 }), {
      name: "RangeError",
      message:
        `Cannot fetch ${base}/declared: the response body (4,096 bytes) exceeds the 1,000-byte limit`,
    });
    await assert.rejects(
      fetchWeb({ url: `${base}/chunked` }, { maxBytes: 1000 }),
      /exceeds the 1,000-byte limit/,
    );
  });

  test("the timeout defaults to 10 s; an expired timeout fails with a clear error", async (t) => {
    const { base } = await serve(t, { "/slow": () => {} });
    const asked: number[] = [];
    const controller = new AbortController();
    const pending = fetchWeb({ url: `${base}/slow` }, {
      timeoutSignal: (ms) => {
        asked.push(ms);
        return controller.signal;
      },
    });
    assert.deepEqual(asked, [10_000]);
    controller.abort(new DOMException("timed out", "TimeoutError"));
    await assert.rejects(pending, {
      message: `Cannot fetch ${base}/slow: timed out after 10 seconds`,
    });
    await assert.rejects(
      fetchWeb({ url: `${base}/slow`, timeout: 0 }, {
        timeoutSignal: (ms) => AbortSignal.abort(asked.push(ms)),
      }),
      /timed out after 10 seconds/,
    );
    assert.deepEqual(asked, [10_000, 10_000], "timeout 0 also means 10 s");
  });

  test("non-http URLs are rejected before any request", async () => {
    await assert.rejects(fetchWeb({ url: "file:///etc/passwd" }), TypeError);
    await assert.rejects(fetchWeb({ url: "not a url" }), TypeError);
  });
});
