/**
 * A child process for the lease tests: a cluster instance in miniature. It takes the lease of
 * session `s1`, appends fenced entries to tape `a__b` (renewing every ttl/3), hands the lease
 * over after 15 appends, and takes it again when it can. Reports on stdout: `lease <epoch>`,
 * `ok <n>` after each committed append, `lost <epoch>` when an append was fenced off.
 *
 * Usage: _lease_worker.ts <url> <schema> <owner> <ttlMs>
 */
import process from "node:process";
import { setTimeout as delay } from "node:timers/promises";
import { BubError } from "../../src/kernel/errors.ts";
import { messageEntry } from "../../src/tape/entry.ts";
import { PostgresTapeStore, type TapeLease } from "../../src/tape/postgres_store.ts";

const [url, schema, owner, ttlText] = process.argv.slice(2);
const ttl = Number(ttlText);
const store = new PostgresTapeStore(url!, { schema: schema!, max: 2 });
let n = 0;
for (;;) {
  let lease: TapeLease | null = await store.acquireLease("s1", owner!, ttl);
  if (!lease) {
    await delay(20);
    continue;
  }
  process.stdout.write(`lease ${lease.epoch}\n`);
  const fenced = store.fenced(lease);
  const renew = setInterval(() => {
    if (lease) void store.renewLease(lease, ttl).catch(() => null);
  }, ttl / 3);
  try {
    for (let i = 0; i < 15; i++) {
      await fenced.append(
        "a__b",
        messageEntry({ role: "user", content: `${owner} ${n}` }, { owner, epoch: lease.epoch, n }),
      );
      process.stdout.write(`ok ${n++}\n`);
    }
    await store.releaseLease(lease);
  } catch (error) {
    if (!BubError.isInstance(error) || error.details?.reason !== "lease_lost") throw error;
    process.stdout.write(`lost ${lease.epoch}\n`);
  } finally {
    clearInterval(renew);
    lease = null;
  }
  await delay(30);
}
