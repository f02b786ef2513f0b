/**
 * A child process for the leader test: leads `poller` (waiting until it can), prints `leading`,
 * then holds the leadership until killed.
 *
 * Usage: _leader_worker.ts <url> <schema>
 */
import process from "node:process";
import { setTimeout as delay } from "node:timers/promises";
import { PostgresLeader } from "../../src/tape/postgres_leader.ts";
import { PostgresTapeStore } from "../../src/tape/postgres_store.ts";

const [url, schema] = process.argv.slice(2);
const store = new PostgresTapeStore(url!, { schema: schema!, max: 2 });
const leader = new PostgresLeader(store, "poller");
while (!await leader.tryLead()) await delay(20);
process.stdout.write("leading\n");
setInterval(() => {}, 60_000);
