/**
 * Three real `bub gateway` processes (Deno, Node 24, Bun) over one PostgreSQL database, the mock
 * model and the fake Bot API: 10 chats × 20 messages in two rounds; round 1 kills (SIGKILL) an
 * instance that holds sessions mid-turn, round 2 kills the elected Telegram poller. Every message
 * is answered, exactly one turn completes per message (a message answered twice was recorded as
 * interrupted and run again), no tape has an id gap, each chat's answers come in order, and the
 * takeovers happen within the lease + 1 s.
 */
import assert from "node:assert/strict";
import process from "node:process";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { connectPg } from "../../src/tape/postgres/_client.ts";
import { PostgresTapeStore } from "../../src/tape/postgres_store.ts";
import { FakeTelegramServer } from "../../src/testing/fake_telegram.ts";
import { mockReply, type MockRequest } from "../../src/testing/_mock_reply.ts";
import { MockLlmServer } from "../../src/testing/mock_llm_server.ts";
import { tempDirs } from "../cli/_spawn.ts";
import { postgresUrl } from "../tape/_postgres.ts";
import {
  busyLeases,
  clusterFacts,
  freshDatabase,
  type Instance,
  liveLeases,
  runtimeBinary,
  RUNTIMES,
  startInstance,
} from "./_cluster_harness.ts";

const PLUGIN = fileURLToPath(new URL("./_cluster_reply_plugin.ts", import.meta.url));
const LEASE_SECONDS = 3;
const CHATS = 10;
const PER_ROUND = 10;
const MODEL_LATENCY_MS = 150;
const FIRST_USER = 7001;
const POLLER_LINE = "cluster.poller leading";

const url = postgresUrl("cluster gateway (Deno, Node 24 and Bun instances)");
const missing = RUNTIMES.filter((name) => runtimeBinary(name) === null);
if (url && missing.length > 0) {
  console.log(`SKIP cluster gateway: no ${missing.join(", ")} in .tools/bin`);
  test("cluster gateway (skipped: runtimes missing)", { skip: missing.join(", ") }, () => {});
}

/** The model answers `You said: <tag>` after a fixed latency. */
async function model(request: MockRequest) {
  await sleep(MODEL_LATENCY_MS);
  const messages = (request.body as { messages: { role: string; content: unknown }[] }).messages;
  const user = messages.findLast((message) => message.role === "user");
  const tag = /TAG-[\w-]+/.exec(JSON.stringify(user?.content ?? ""))?.[0] ?? "none";
  return mockReply.text(`You said: ${tag}`);
}

async function until(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

const alive = (instance: Instance) =>
  instance.child.process.exitCode === null &&
  instance.child.process.signalCode === null;
const leads = (instance: Instance) => instance.child.stderr.split(POLLER_LINE).length - 1;

if (url && missing.length === 0) {
  test("three gateway instances share the chats, survive kill -9 of a worker and of the poller", {
    timeout: 180_000,
  }, async () => {
    const started = Date.now();
    const cleanup: (() => Promise<unknown> | unknown)[] = [];
    const instances: Instance[] = [];
    let diagnose = (): Promise<string> => Promise.resolve("");
    try {
      const db = await freshDatabase(url);
      cleanup.push(() => db.drop());
      await using schema = new PostgresTapeStore(db.url);
      await schema.listTapes(); // creates the tables before the instances race for them
      const sql = await connectPg(db.url, { max: 2 });
      diagnose = async () => {
        const rows = await sql.unsafe(
          `SELECT id, session, state, body::text AS body FROM bub_inbox WHERE state <> 'done'`,
        );
        const leases = await sql.unsafe(`SELECT * FROM bub_leases WHERE owner IS NOT NULL`);
        return `pending: ${JSON.stringify(rows)}\nleases: ${JSON.stringify(leases)}\nsent: ${
          telegram.callsOf("sendMessage").length
        }, owners: ${instances.map((i) => `${i.runtime} ${i.owner} ${alive(i)}`).join("; ")}`;
      };
      cleanup.push(() => sql.end({ timeout: 5 }));
      const telegram = await FakeTelegramServer.start();
      cleanup.push(() => telegram.close());
      const llm = await MockLlmServer.start({ script: model });
      cleanup.push(() => llm.close());
      const dirs = tempDirs("bub-cluster-test-");
      cleanup.push(() => dirs.remove());
      dirs.writeConfig(`plugins:\n  - ${JSON.stringify(PLUGIN)}\n`);
      const users = Array.from({ length: CHATS }, (_, i) => FIRST_USER + i);
      const env = {
        BUB_TAPE_STORE: db.url,
        BUB_CLUSTER_LEASE_SECONDS: String(LEASE_SECONDS),
        BUB_CLUSTER_POLL_SECONDS: "0.2",
        BUB_MODEL: "custom:x",
        BUB_API_BASE: llm.url,
        BUB_API_KEY: "sk-cluster",
        BUB_TELEGRAM_TOKEN: telegram.token,
        BUB_TELEGRAM_API_ROOT: telegram.apiRoot,
        BUB_TELEGRAM_ALLOW_USERS: users.join(","),
        BUB_LOG_LEVEL: "info",
      };
      const kill = (instance: Instance) => {
        if (alive(instance)) instance.child.kill();
      };
      cleanup.push(() =>
        Promise.all(instances.map(async (instance) => {
          if (alive(instance)) process.kill(instance.child.process.pid!, "SIGTERM");
          await instance.child.exited(10_000).catch(() => instance.child.kill());
        }))
      );
      instances.push(...await Promise.all(RUNTIMES.map((name) => startInstance(name, dirs, env))));
      await telegram.waitForCalls("getUpdates", 1, { timeoutMs: 20_000 });

      const replies = () => telegram.callsOf("sendMessage").map((call) => String(call.params.text));
      const send = async (from: number, to: number) => {
        for (let m = from; m < to; m++) {
          for (let c = 0; c < CHATS; c++) {
            telegram.pushText(`hello TAG-c${c}-m${m}`, { from: telegram.makeUser(users[c]!) });
            await sleep(15);
          }
        }
      };
      const tags = (from: number, to: number) =>
        Array.from(
          { length: (to - from) * CHATS },
          (_, i) => `TAG-c${i % CHATS}-m${from + Math.floor(i / CHATS)}`,
        );
      const answered = (wanted: string[]) => {
        const said = new Set(replies().map((text) => text.replace("You said: ", "")));
        return wanted.every((tag) => said.has(tag));
      };

      // Round 1: SIGKILL a worker holding a session with a message not done yet (not the poller)
      // while turns run. (Claims spread the sessions, and an idle session's lease is released, so a
      // worker may hold one at a time.)
      const round1 = send(0, PER_ROUND);
      await until("25 answers", () => replies().length >= 25, 30_000);
      let victim: Instance | undefined;
      let held: string[] = [];
      const deadline = Date.now() + 20_000;
      while (!victim) {
        const leases = await busyLeases(sql);
        victim = instances.find((instance) =>
          alive(instance) && leads(instance) === 0 && (leases.get(instance.owner) ?? []).length >= 1
        );
        held = victim ? leases.get(victim.owner)! : [];
        if (!victim && Date.now() > deadline) throw new Error("no worker held a session");
        if (!victim) await sleep(20);
      }
      const killedAt = Date.now();
      kill(victim!);
      await round1;
      await until("every round-1 answer", () => answered(tags(0, PER_ROUND)), 30_000);
      const facts1 = await clusterFacts(sql);
      const takeovers = facts1.interrupted.filter((event) => event.owner === victim!.owner)
        .map((event) => event.at - killedAt);
      assert.ok(takeovers.length > 0, `no turn of ${held.join(", ")} was recorded as interrupted`);
      for (const ms of takeovers) assert.ok(ms <= LEASE_SECONDS * 1000 + 1000, `takeover ${ms} ms`);

      // Round 2: the killed instance comes back; SIGKILL the Telegram poller mid-round.
      const index = instances.indexOf(victim!);
      instances[index] = await startInstance(victim!.runtime, dirs, env);
      const round2 = send(PER_ROUND, 2 * PER_ROUND);
      const before = replies().length;
      await until("25 more answers", () => replies().length >= before + 25, 30_000);
      const poller = instances.find((instance) => alive(instance) && leads(instance) > 0);
      assert.ok(poller, "no instance says it leads the Telegram poller");
      const others = instances.filter((instance) => instance !== poller && alive(instance));
      const ledBefore = others.map(leads);
      const pollerKilledAt = Date.now();
      kill(poller);
      await until("a new poller", () => others.some((o, i) => leads(o) > ledBefore[i]!), 10_000);
      const pollerTakeover = Date.now() - pollerKilledAt;
      assert.ok(pollerTakeover <= LEASE_SECONDS * 1000 + 1000, `poller takeover ${pollerTakeover}`);
      await round2;
      await until("every answer", () => answered(tags(0, 2 * PER_ROUND)), 30_000);
      await sleep(300);

      const facts = await clusterFacts(sql);
      assert.deepEqual(facts.gaps, [], "tapes with an id gap");
      assert.equal(facts.pending, 0, "inbox rows not done");
      assert.equal(facts.rows.size, CHATS * 2 * PER_ROUND, "one inbox row per message");
      const interrupted = new Set(facts.interrupted.map((event) => event.id));
      let duplicates = 0;
      for (const [tag, row] of facts.rows) {
        assert.equal(facts.completions.get(row.id), 1, `turn completions of ${tag}`);
        const count = replies().filter((text) => text === `You said: ${tag}`).length;
        assert.ok(count >= 1, `${tag} unanswered`);
        if (count > 1) {
          duplicates += count - 1;
          assert.ok(interrupted.has(row.id), `${tag} answered ${count} times, not interrupted`);
        }
      }
      for (let c = 0; c < CHATS; c++) {
        const said = telegram.callsOf("sendMessage")
          .filter((call) => Number(call.params.chat_id) === users[c])
          .map((call) => String(call.params.text).replace("You said: ", ""));
        const firsts = said.filter((tag, i) => said.indexOf(tag) === i);
        const expected = Array.from({ length: 2 * PER_ROUND }, (_, m) => `TAG-c${c}-m${m}`);
        assert.deepEqual(firsts, expected, `answers of chat ${c} out of order`);
      }
      // SIGTERM: every instance exits cleanly and releases its leases.
      const survivors = instances.filter(alive);
      for (const instance of survivors) process.kill(instance.child.process.pid!, "SIGTERM");
      const codes = await Promise.all(survivors.map((instance) => instance.child.exited(15_000)));
      assert.deepEqual(codes, survivors.map(() => 0), "exit codes after SIGTERM");
      assert.equal((await liveLeases(sql)).size, 0, "leases left after SIGTERM");
      console.log(
        `cluster: ${facts.rows.size} messages, worker takeover ${
          Math.max(...takeovers)
        } ms (lease ${LEASE_SECONDS} s), poller takeover ${pollerTakeover} ms, ${facts.interrupted.length} interrupted, ${duplicates} re-answered, ${
          ((Date.now() - started) / 1000).toFixed(1)
        } s`,
      );
    } catch (error) {
      console.error(await diagnose().catch((e) => `no diagnosis: ${e}`));
      for (const instance of instances) {
        console.error(
          `--- ${instance.runtime} ${instance.owner} stderr ---\n${
            instance.child.stderr.split("\n").filter((line) => !/INF/.test(line)).slice(-40).join(
              "\n",
            )
          }`,
        );
      }
      throw error;
    } finally {
      for (const step of cleanup.reverse()) await Promise.resolve(step()).catch(() => {});
    }
  });
}
