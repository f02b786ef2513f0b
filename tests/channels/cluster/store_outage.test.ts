/**
 * A cluster instance over a PostgreSQL server that goes down (a real server stopped and started):
 * a message a channel hands over while the database is down is enqueued once it is back, then
 * claimed, answered and completed; a turn running when it goes down completes after recovery
 * (its inbox row stays pending until then). Nothing acknowledged is lost.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { ClusterGateway } from "../../../src/channels/cluster/cluster_gateway.ts";
import { TURN_COMPLETED } from "../../../src/channels/cluster/_turn_events.ts";
import { runtimeKey } from "../../../src/_internal/runtime.ts";
import { connectPg } from "../../../src/tape/postgres/_client.ts";
import { sessionTapeName } from "../../../src/tape/naming.ts";
import { TapeQuery } from "../../../src/tape/query.ts";
import { until } from "../../tape/_helpers.ts";
import { startOwnPgServer } from "../../tape/_pg_server.ts";
import { postgresUrl, uniqueSchema } from "../../tape/_postgres.ts";
import { channelFixture, contents } from "../_fixtures.ts";

const available = postgresUrl("cluster over a PostgreSQL outage");

/**
 * On Bun, stopping the server sometimes surfaces a `read ECONNRESET` (made in Bun's `node:net`
 * close) as an uncaught error of the test process, about one run in six under load; Deno and Node
 * never show it. Until it is found (a Bun gateway could crash when its database restarts), this
 * cluster-level test runs on Deno and Node only; the store-level outage tests run everywhere.
 */
const BUN_RESET = runtimeKey() === "bun"
  ? "Bun: an uncaught ECONNRESET when PostgreSQL stops, under investigation"
  : false;

if (available) {
  test(
    "PostgreSQL down: a running turn and a message sent meanwhile both complete after recovery",
    {
      skip: BUN_RESET,
    },
    async () => {
      await using server = await startOwnPgServer();
      const schema = uniqueSchema();
      using fx = channelFixture();
      const gateway = new ClusterGateway(fx.framework as never, {
        url: server.url,
        schema,
        owner: "A",
        workspace: "/cluster-outage",
        leaseSeconds: 30,
        pollSeconds: 0.2,
        storeRetrySeconds: 120,
        enabledChannels: "memory",
      });
      const stop = new AbortController();
      const running = gateway.run(stop.signal);
      try {
        await until(() => fx.channel().running, "the channel");
        await fx.channel().push({ sessionId: "memory:1", chatId: "1", content: "one" });
        await fx.model.waitForCalls(1);

        // The database goes down while the turn of "one" runs; "two" arrives meanwhile.
        await server.stop();
        const handed = fx.channel().push({ sessionId: "memory:2", chatId: "2", content: "two" });
        handed.catch(() => {});
        fx.model.call(0).release();
        await new Promise((resolve) => setTimeout(resolve, 500));
        await server.start();
        await handed;

        await fx.model.waitForCalls(2);
        fx.model.call(1).release();
        const sent = contents(await fx.channel().waitForSent(2));
        assert.deepEqual(sent.sort(), ["reply:one", "reply:two"]);

        // Both inbox rows end done, each turn completed once on its session's tape.
        const sql = await connectPg(server.url, { max: 1 });
        try {
          const pending = async () =>
            Number(
              (await sql.unsafe(
                `SELECT count(*) AS n FROM "${schema}".bub_inbox WHERE state <> 'done'`,
              ))[0]!.n,
            );
          await until(async () => await pending() === 0, "both messages done");
          const rows = await sql.unsafe(`SELECT session FROM "${schema}".bub_inbox ORDER BY id`);
          assert.deepEqual(rows.map((row) => row.session), ["memory:1", "memory:2"]);
        } finally {
          await sql.end({ timeout: 5 });
        }
        for (const session of ["memory:1", "memory:2"]) {
          const tape = sessionTapeName(session, "/cluster-outage");
          const completed = (await new TapeQuery(tape, gateway.store).kinds("event").all())
            .filter((entry) => entry.payload.name === TURN_COMPLETED);
          assert.equal(completed.length, 1, `${session}: one completed turn`);
        }
      } finally {
        stop.abort();
        await running;
      }
    },
  );
}
