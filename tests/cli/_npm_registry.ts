/**
 * A fake npm registry on 127.0.0.1 for the plugin-install tests: packuments (`GET /<name>`) and
 * tarballs made by `npm pack` from fixture folders (tests/fixtures/plugin_packages/), published
 * while it runs. It serves JSR-shaped names (`@jsr/scope__name`) like any other.
 *
 * @module
 */
import { execFile } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { ROOT } from "./_spawn.ts";

/** The fixture plugin packages. */
export const PLUGIN_FIXTURES: string = join(ROOT, "tests", "fixtures", "plugin_packages");

const run = promisify(execFile);

/** Copies fixture `name` to a new folder, `__VERSION__` replaced by `version` in every file. */
export function materialize(name: string, version: string, into?: string): string {
  const dir = into ?? mkdtempSync(join(tmpdir(), `bub-fixture-${name}-`));
  cpSync(join(PLUGIN_FIXTURES, name), dir, { recursive: true });
  for (const file of readdirSync(dir)) {
    const path = join(dir, file);
    writeFileSync(path, readFileSync(path, "utf8").replaceAll("__VERSION__", version));
  }
  return dir;
}

/** What `npm pack` made. */
export interface Packed {
  /** The tarball. */
  file: string;
  /** Its `sha512-…` integrity. */
  integrity: string;
  /** Its SHA-1, hex. */
  shasum: string;
}

/** Packs `dir` with `npm pack` into `dest`. */
export async function npmPack(dir: string, dest: string): Promise<Packed> {
  const { stdout } = await run("npm", ["pack", dir, "--pack-destination", dest, "--json"], {
    cwd: dest,
  });
  const [info] = JSON.parse(stdout) as { filename: string; integrity: string; shasum: string }[];
  return { file: join(dest, info!.filename), integrity: info!.integrity, shasum: info!.shasum };
}

interface Published {
  manifest: Record<string, unknown>;
  tarball: Uint8Array;
  integrity: string;
  shasum: string;
}

/** A running fake registry. */
export interface FakeRegistry extends AsyncDisposable {
  /** Its base URL (`http://127.0.0.1:<port>/`). */
  readonly url: string;
  /** Packs fixture `fixture` at `version` and serves it. */
  publish(fixture: string, version: string): Promise<void>;
  /** The package names asked for so far. */
  readonly requested: string[];
  /** Leaves requests for `name` unanswered (until the registry stops). */
  stall(name: string): void;
}

function newer(a: string, b: string): boolean {
  const [x, y] = [a.split(".").map(Number), b.split(".").map(Number)];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i]! > y[i]!;
  return false;
}

const packed = new Map<string, Promise<Published>>();

/**
 * Fixture `fixture` at `version`, packed with `npm pack` once per process (about a second each):
 * every registry of a test file serves the same bytes.
 */
function packOnce(fixture: string, version: string): Promise<Published> {
  const key = `${fixture}@${version}`;
  let item = packed.get(key);
  if (!item) {
    item = (async () => {
      const scratch = mkdtempSync(join(tmpdir(), "bub-registry-pack-"));
      try {
        const dir = materialize(fixture, version, join(scratch, "package"));
        const tarball = await npmPack(dir, scratch);
        return {
          manifest: JSON.parse(readFileSync(join(dir, "package.json"), "utf8")),
          tarball: readFileSync(tarball.file),
          integrity: tarball.integrity,
          shasum: tarball.shasum,
        };
      } finally {
        rmSync(scratch, { recursive: true, force: true });
      }
    })();
    // A failed pack is not kept: the next publish tries again.
    item.catch(() => packed.delete(key));
    packed.set(key, item);
  }
  return item;
}

/** Starts a fake registry; dispose it to stop it. */
export async function startFakeRegistry(): Promise<FakeRegistry> {
  const packages = new Map<string, Map<string, Published>>();
  const requested: string[] = [];
  const stalled = new Set<string>();
  let base = "";
  const server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? "/", base).pathname);
    const tarball = /^\/-\/tarball\/(.+)\/([^/]+)\.tgz$/.exec(path);
    if (tarball) {
      const found = packages.get(tarball[1]!)?.get(tarball[2]!);
      response.writeHead(found ? 200 : 404, { "content-type": "application/octet-stream" });
      response.end(found?.tarball);
      return;
    }
    const name = path.slice(1);
    requested.push(name);
    if (stalled.has(name)) return;
    const versions = packages.get(name);
    if (!versions) {
      response.writeHead(404, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: "Not found" }));
      return;
    }
    let latest = "0.0.0";
    const entries: Record<string, unknown> = {};
    for (const [version, item] of versions) {
      if (newer(version, latest)) latest = version;
      entries[version] = {
        ...item.manifest,
        _id: `${name}@${version}`,
        dist: {
          tarball: `${base}-/tarball/${encodeURIComponent(name)}/${version}.tgz`,
          integrity: item.integrity,
          shasum: item.shasum,
        },
      };
    }
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify({ name, "dist-tags": { latest }, versions: entries }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return {
    url: base,
    requested,
    stall(name) {
      stalled.add(name);
    },
    async publish(fixture, version) {
      const item = await packOnce(fixture, version);
      const versions = packages.get(item.manifest.name as string) ?? new Map();
      versions.set(version, item);
      packages.set(item.manifest.name as string, versions);
    },
    async [Symbol.asyncDispose]() {
      server.closeAllConnections?.();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
