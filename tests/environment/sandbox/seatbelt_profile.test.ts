/**
 * The macOS sandbox's profile, on every host (the profile is a pure function of the settings):
 * what each setting allows and denies, in the order Seatbelt needs (the last matching rule wins),
 * the limits line, and which backend each platform gets (none, with a clear reason, where there
 * is no sandbox). The profile is run by `sandbox-exec` only on macOS: sandbox_seatbelt.test.ts.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  DEFAULT_SANDBOX_LIMITS,
  type SandboxProfile,
} from "../../../src/environment/sandbox_profile.ts";
import {
  SEATBELT_SYSTEM_PATHS,
  seatbeltLimits,
  seatbeltProfile,
} from "../../../src/environment/seatbelt_profile.ts";
import { sandboxBackend } from "../../../src/environment/sandbox_backend.ts";
import { sandboxRemedy, unsupportedPlatform } from "../../../src/environment/sandbox_probe.ts";

// Paths that exist on no test host, so they resolve to themselves.
const HOME = "/nonexistent-bub/Users/me";
const BUB_HOME = `${HOME}/.bub`;
const WORKSPACE = `${HOME}/project`;
const SCRATCH = "/nonexistent-bub/T/bub-sandbox-1";

function profile(overrides: Partial<SandboxProfile> = {}): SandboxProfile {
  return {
    workspace: WORKSPACE,
    network: "off",
    readOnly: [],
    readWrite: [],
    hidden: [BUB_HOME],
    home: HOME,
    limits: DEFAULT_SANDBOX_LIMITS,
    ...overrides,
  };
}

/** The rules of `sbpl` (comments and blank lines dropped), each as one line. */
function rules(sbpl: string): string[] {
  const out: string[] = [];
  for (const line of sbpl.split("\n")) {
    if (line.trim() === "" || line.startsWith(";")) continue;
    if (line.startsWith("  ") || line === ")") out[out.length - 1] += ` ${line.trim()}`;
    else out.push(line);
  }
  return out;
}

/** The index of the last rule that starts with `head` and mentions `path`'s subpath. */
function lastRule(sbpl: string, head: string, path: string): number {
  const list = rules(sbpl);
  for (let i = list.length - 1; i >= 0; i--) {
    if (list[i]!.startsWith(head) && list[i]!.includes(`(subpath "${path}")`)) return i;
  }
  return -1;
}

const seatbelt = (overrides: Partial<SandboxProfile> = {}, proxyPort: number | null = null) =>
  seatbeltProfile(profile(overrides), { scratch: SCRATCH, proxyPort });

describe("the Seatbelt profile of the sandbox settings", () => {
  test("denies by default; processes reach only their own sandbox", () => {
    const sbpl = seatbelt();
    const list = rules(sbpl);
    assert.equal(list[0], "(version 1)");
    assert.equal(list[1], "(deny default)");
    assert.ok(list.includes("(allow signal (target same-sandbox))"));
    assert.ok(list.includes("(allow process-info* (target same-sandbox))"));
    assert.ok(!list.some((rule) => /^\(allow (signal|process-info\*)\)?$/.test(rule)));
    // Balanced: sandbox-exec refuses a profile that is not.
    assert.equal(sbpl.split("(").length, sbpl.split(")").length);
  });

  test("the workspace is read-write, after the deny of the home that holds it", () => {
    const sbpl = seatbelt();
    const denyHome = lastRule(sbpl, "(deny file-read* file-write*", HOME);
    assert.ok(denyHome > 0, "the home is denied");
    assert.ok(lastRule(sbpl, "(allow file-read*", WORKSPACE) > denyHome);
    assert.ok(lastRule(sbpl, "(allow file-write*", WORKSPACE) > denyHome);
    // The folders above it: their metadata only (realpath walks them), not their contents.
    assert.ok(
      rules(sbpl).some((r) =>
        r.startsWith("(allow file-read-metadata") && r.includes(`(literal "${HOME}")`)
      ),
    );
    assert.ok(
      !rules(sbpl).some((r) => r.startsWith("(allow file-read*") && r.includes(`"${HOME}"`)),
    );
  });

  test("BUB_HOME is denied, even inside the workspace or an extra path", () => {
    const inside = `${WORKSPACE}/.bub`;
    const sbpl = seatbelt({ hidden: [BUB_HOME, inside], readOnly: [`${HOME}/.agents/skills`] });
    assert.ok(lastRule(sbpl, "(deny file-read* file-write*", BUB_HOME) > 0);
    const allowWorkspace = lastRule(sbpl, "(allow file-read*", WORKSPACE);
    assert.ok(lastRule(sbpl, "(deny file-read* file-write*", inside) > allowWorkspace);
    // A hidden path that is the workspace itself does not hide it (as with bubblewrap).
    const same = seatbelt({ hidden: [WORKSPACE] });
    assert.equal(lastRule(same, "(deny", WORKSPACE), -1);
  });

  test("the system folders are read-only; extra paths read-only or read-write as set", () => {
    const sbpl = seatbelt({
      readOnly: ["/nonexistent-bub/ro"],
      readWrite: ["/nonexistent-bub/rw"],
    });
    for (const path of SEATBELT_SYSTEM_PATHS) {
      assert.ok(lastRule(sbpl, "(allow file-read*", path) >= 0, path);
      assert.equal(lastRule(sbpl, "(allow file-write*", path), -1, path);
    }
    assert.ok(lastRule(sbpl, "(allow file-read*", "/nonexistent-bub/ro") > 0);
    assert.equal(lastRule(sbpl, "(allow file-write*", "/nonexistent-bub/ro"), -1);
    assert.ok(lastRule(sbpl, "(allow file-write*", "/nonexistent-bub/rw") > 0);
    // Nothing else is written: no write rule without a path filter.
    assert.ok(!rules(sbpl).some((r) => /^\(allow file-write\*\)$/.test(r)));
  });

  test("the command's scratch folder (its TMPDIR and HOME) is read-write; /tmp is not", () => {
    const sbpl = seatbelt();
    assert.ok(lastRule(sbpl, "(allow file-write*", SCRATCH) > 0);
    assert.ok(lastRule(sbpl, "(allow file-read*", SCRATCH) > 0);
    assert.ok(!sbpl.includes('(subpath "/tmp")') && !sbpl.includes('(subpath "/private/tmp")'));
  });

  test("network off allows no network operation; on allows all", () => {
    assert.doesNotMatch(seatbelt(), /network/);
    assert.ok(rules(seatbelt({ network: "on" })).includes("(allow network*)"));
  });

  test("an allowlist reaches only the egress proxy's port on 127.0.0.1", () => {
    const sbpl = seatbelt({ network: { allow: ["example.com"] } }, 43210);
    const network = rules(sbpl).filter((r) => r.includes("network"));
    assert.deepEqual(network, ['(allow network-outbound (remote ip "localhost:43210"))']);
    // Without a proxy (it failed to start) nothing is reachable.
    assert.doesNotMatch(seatbelt({ network: { allow: ["example.com"] } }), /network/);
  });

  test("a path with quotes or backslashes stays one SBPL string", () => {
    const odd = '/nonexistent-bub/we"ird\\dir';
    const sbpl = seatbelt({ workspace: odd });
    assert.ok(sbpl.includes(`(subpath ${JSON.stringify(odd)})`));
  });

  test("limits: CPU seconds and file size through ulimit (1024-byte blocks)", () => {
    assert.equal(seatbeltLimits(DEFAULT_SANDBOX_LIMITS), "ulimit -t 600 -f 1048576");
    assert.equal(
      seatbeltLimits({ cpuSeconds: null, memoryBytes: null, processes: null, fileBytes: null }),
      "",
    );
  });
});

describe("the sandbox backend of each platform", () => {
  test("bubblewrap on Linux, Seatbelt on macOS with sandbox-exec, else none and why", () => {
    assert.equal(sandboxBackend("linux"), "bwrap");
    assert.equal(sandboxBackend("darwin", (path) => path === "/usr/bin/sandbox-exec"), "seatbelt");
    assert.equal(sandboxBackend("darwin", () => false), null);
    assert.equal(sandboxBackend("win32"), null);
    assert.equal(unsupportedPlatform("linux"), null);
    assert.match(unsupportedPlatform("darwin", () => false)!, /needs \/usr\/bin\/sandbox-exec/);
    assert.match(unsupportedPlatform("win32")!, /no sandbox for win32.*Linux.*macOS/);
    // `sandbox: required` says this reason, then what to do (no apt-get off Linux).
    assert.doesNotMatch(sandboxRemedy("win32"), /apt-get/);
    assert.match(sandboxRemedy("linux"), /apt-get install bubblewrap socat/);
  });
});
