import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ChannelMessage } from "../../../src/kernel/channel_message.ts";
import type { StreamEvent } from "../../../src/kernel/stream.ts";
import { BubError } from "../../../src/kernel/errors.ts";
import { openCli } from "./_fixtures.ts";

function text(delta: string): StreamEvent {
  return { kind: "text", data: { delta } };
}

async function* source(events: StreamEvent[]): AsyncGenerator<StreamEvent> {
  for (const event of events) {
    await Promise.resolve();
    yield event;
  }
}

async function collect(stream: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const event of stream) out.push(event);
  return out;
}

function message(kind: "normal" | "command" = "normal"): ChannelMessage {
  return new ChannelMessage({
    sessionId: "cli_session",
    channel: "cli",
    chatId: "cli_chat",
    content: "q",
    kind,
  });
}

const ANSWER = "# Plan\n\nHere is **the** plan:\n\n- first step\n- second `step`\n\n" +
  "```ts\nconst x = 1;\nconsole.log(x);\n```\n\nDone.";

/** Splits `text` into deltas of `size` characters, cutting through Markdown syntax. */
function deltas(answer: string, size: number): StreamEvent[] {
  const out: StreamEvent[] = [];
  for (let i = 0; i < answer.length; i += size) out.push(text(answer.slice(i, i + size)));
  return out;
}

describe("CLI stream rendering (builtin §10.4)", () => {
  test("streamEvents renders a Markdown answer in an Assistant panel and re-yields every event unchanged", async () => {
    await using fx = await openCli({ started: false });
    const events: StreamEvent[] = [
      ...deltas(ANSWER, 7),
      { kind: "final", data: { ok: true, text: ANSWER } },
    ];
    const seen = await collect(fx.cli.streamEvents(message(), source(events)));
    assert.equal(seen.length, events.length);
    seen.forEach((event, i) => assert.equal(event, events[i]));
    const out = fx.text();
    const lines = out.split("\n");
    assert.match(lines[0]!, /^── Assistant ─+$/);
    assert.ok(lines.includes("# Plan"), out);
    assert.ok(lines.includes("Here is the plan:"), out);
    assert.ok(lines.includes("• first step"), out);
    assert.ok(lines.includes("• second step"), out);
    assert.ok(lines.includes("  ts"), out);
    assert.ok(lines.includes("  const x = 1;"), out);
    assert.ok(lines.includes("  console.log(x);"), out);
    assert.ok(lines.includes("Done."), out);
    assert.match(lines.at(-2)!, /^─+$/, "a bottom border closes the panel");
    assert.equal(out.split("# Plan").length, 2, "each block is printed once on a pipe");
    assert.ok(!out.includes("\x1b["), "no escapes on a pipe");
  });

  test("comma command output gets a Command panel; an empty response prints no panel", async () => {
    await using fx = await openCli({ started: false });
    await collect(fx.cli.streamEvents(message("command"), source([text("hello"), text(" world")])));
    assert.match(fx.text(), /^── Command ─+\nhello world\n─+\n$/);
    const before = fx.text().length;
    await collect(fx.cli.streamEvents(message(), source([{ kind: "final", data: { ok: true } }])));
    assert.equal(fx.text().length, before);
  });

  test("leading whitespace-only deltas are swallowed, not forwarded", async () => {
    await using fx = await openCli({ started: false });
    const events = [text("\n"), text("  "), text("Hi"), text(" "), text("there")];
    const seen = await collect(fx.cli.streamEvents(message(), source(events)));
    assert.deepEqual(seen.map((e) => e.kind === "text" ? e.data.delta : e.kind), [
      "Hi",
      " ",
      "there",
    ]);
    assert.ok(fx.text().includes("\nHi there\n"), fx.text());
  });

  test("collapsed reasoning prints a hidden-character count; expanded reasoning is printed", async () => {
    await using fx = await openCli({ started: false });
    const reasoning = (delta: string): StreamEvent => ({ kind: "reasoning", data: { delta } });
    await collect(
      fx.cli.streamEvents(
        message(),
        source([reasoning("let me "), reasoning("think"), text("ok")]),
      ),
    );
    assert.ok(fx.text().includes("[+] Thinking (12 chars hidden)\n── Assistant"), fx.text());
    await fx.cli.start(fx.stop);
    fx.type(",thinking");
    await fx.waitForOutput("Thinking output is now expanded.");
    const before = fx.text().length;
    await collect(
      fx.cli.streamEvents(
        message(),
        source([reasoning("step one\nstep "), reasoning("two"), text("ok")]),
      ),
    );
    assert.ok(fx.text().slice(before).startsWith("[-] Thinking\nstep one\nstep two\n"), fx.text());
  });

  test("a tool_call flushes the segment; tool_start/tool_end events print the tool calls", async () => {
    await using fx = await openCli({ started: false });
    const call = (id: string, name: string, args: Record<string, unknown>) =>
      ({ id, type: "function", function: { name, arguments: JSON.stringify(args) } }) as const;
    const read = { call_id: "1", name: "fs.read", arguments: { path: "README.md", limit: 5 } };
    const bash = { call_id: "2", name: "bash", arguments: { cmd: "false" } };
    const failure = new BubError("tool", "Tool 'bash' execution failed.", null, {
      cause: new TypeError("exit 1"),
    });
    const events: StreamEvent[] = [
      text("Reading the file."),
      {
        kind: "tool_call",
        data: {
          tool_calls: [call("1", "fs_read", read.arguments), call("2", "bash", bash.arguments)],
        },
      },
      { kind: "tool_start", data: read },
      {
        kind: "tool_end",
        data: { ...read, ok: true, result: "text", error: null, duration_ms: 3 },
      },
      { kind: "tool_start", data: bash },
      { kind: "tool_end", data: { ...bash, ok: false, error: failure, duration_ms: 4.4 } },
      { kind: "tool_result", data: { tool_results: ["text", failure.asDict()] } },
      text("All done."),
      { kind: "final", data: { ok: true } },
    ];
    const seen = await collect(fx.cli.streamEvents(message(), source(events)));
    assert.deepEqual(seen, events, "every event is re-yielded unchanged");
    const out = fx.text();
    assert.match(
      out,
      /^── Assistant ─+\nReading the file\.\n─+\n\n● fs\.read\(path: "README\.md", limit: 5\)\n {2}⎿ completed in 3 ms\n● bash\(cmd: "false"\)\n {2}⎿ failed in 4 ms\n {4}\{\n {6}"type": "TypeError",\n {6}"message": "exit 1"\n {4}\}\n── Assistant ─+\nAll done\.\n─+\n$/,
    );
  });

  test("an error in the stream still flushes the partial answer", async () => {
    await using fx = await openCli({ started: false });
    async function* failing(): AsyncGenerator<StreamEvent> {
      yield text("partial ");
      yield text("answer");
      throw new Error("connection lost");
    }
    await assert.rejects(collect(fx.cli.streamEvents(message(), failing())), /connection lost/);
    assert.match(fx.text(), /── Assistant ─+\npartial answer\n─+\n$/);
  });

  test("cancelling the consumer flushes the partial answer and closes the source", async () => {
    await using fx = await openCli({ started: false });
    let closed = false;
    async function* endless(): AsyncGenerator<StreamEvent> {
      try {
        while (true) yield text("more ");
      } finally {
        closed = true;
      }
    }
    let count = 0;
    for await (const _ of fx.cli.streamEvents(message(), endless())) if (++count === 3) break;
    assert.equal(closed, true);
    assert.match(fx.text(), /── Assistant ─+\nmore more more\n─+\n$/);
  });

  test("on a terminal, the unfinished block is re-rendered live inside synchronized updates", async () => {
    await using fx = await openCli({ started: false, terminal: true });
    const shown: boolean[] = [];
    async function* turn(): AsyncGenerator<StreamEvent> {
      yield text("# Title\n\nHello wor");
      shown.push(fx.text().includes("Hello wor"));
      yield text("ld, again");
      shown.push(fx.text().includes("Hello world, again"));
    }
    await collect(fx.cli.streamEvents(message(), turn()));
    assert.deepEqual(shown, [true, true], "the pending paragraph is drawn before it completes");
    const out = fx.text();
    assert.ok(out.includes("\x1b[?2026h") && out.includes("\x1b[?2026l"));
    // deno-lint-ignore no-control-regex
    assert.match(out, /\x1b\[\d+F\x1b\[J/, "the live block is erased before it is redrawn");
    assert.equal(out.split("Title").length, 2, "a completed block is printed once");
  });
});
