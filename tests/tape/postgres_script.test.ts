import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { connectPg } from "../../src/tape/postgres/_client.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

function hasServerBinaries(): boolean {
  try {
    return readdirSync("/usr/lib/postgresql").some((v) =>
      existsSync(`/usr/lib/postgresql/${v}/bin/initdb`)
    );
  } catch {
    return false;
  }
}

test(
  "scripts/postgres.sh -- <command>: a server for the command, its exit status, then nothing left",
  {
    skip: !hasServerBinaries() && "PostgreSQL server binaries are not installed",
  },
  async () => {
    const child = spawn(
      "bash",
      [
        "scripts/postgres.sh",
        "--",
        "bash",
        "-c",
        'echo "$BUB_TEST_POSTGRES_URL $BUB_POSTGRES_DIR"; read -r _; exit 7',
      ],
      { cwd: ROOT, stdio: ["pipe", "pipe", "pipe"] },
    );
    let stderr = "";
    child.stderr!.on("data", (chunk) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
    try {
      const line = await new Promise<string>((resolve, reject) => {
        let out = "";
        child.stdout!.on("data", (chunk) => {
          out += chunk;
          if (out.includes("\n")) resolve(out.trim());
        });
        void exited.then(() => reject(new Error(`postgres.sh exited early: ${stderr}`)));
      });
      const [url, dir] = line.split(" ");
      assert.match(url!, /^postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres$/);
      assert.ok(existsSync(dir!), dir);
      const sql = await connectPg(url!, { max: 1, connectTimeoutSeconds: 5 });
      try {
        const rows = await sql.unsafe("SELECT current_setting('listen_addresses') AS a");
        assert.equal(rows[0]?.a, "127.0.0.1");
      } finally {
        await sql.end({ timeout: 5 });
      }
      child.stdin!.end("\n");
      assert.equal(await exited, 7, stderr);
      assert.equal(existsSync(dir!), false, "the data directory is removed");
      const after = await connectPg(url!, { max: 1, connectTimeoutSeconds: 2 });
      try {
        await assert.rejects(after.unsafe("SELECT 1"), "the server is stopped");
      } finally {
        await after.end({ timeout: 0 });
      }
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    }
  },
);
