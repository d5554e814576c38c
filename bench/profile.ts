// BENCH_PROFILE=1: where the server's CPU time went, from the .cpuprofile it writes on exit.

import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { SourceMap } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { log } from "./lifecycle.js";
import { PROFILE_DIR, RESULTS_DIR, ROOT } from "./options.js";

/** Self time by function and by module from the server's .cpuprofile (BENCH_PROFILE=1). */
export function summariseProfile(): void {
  const files = readdirSync(PROFILE_DIR)
    .filter((f) => f.endsWith(".cpuprofile"))
    .map((f) => join(PROFILE_DIR, f))
    // The main thread's profile is by far the largest (tsx's loader thread writes one too).
    .sort((a, b) => statSync(b).size - statSync(a).size);
  const [file] = files;
  if (!file) {
    log("no .cpuprofile was written (the server must exit cleanly for one)");
    return;
  }
  interface ProfileNode {
    id: number;
    callFrame: ProfileFrame & { functionName: string };
  }
  const profile = JSON.parse(readFileSync(file, "utf8")) as {
    nodes: ProfileNode[];
    samples: number[];
    timeDeltas: number[];
  };
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const original = originalPositions();
  const byFunction = new Map<string, number>();
  const byModule = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, index) => {
    const node = byId.get(id);
    const delta = profile.timeDeltas[index] ?? 0;
    if (!node) return;
    const { functionName } = node.callFrame;
    if (functionName === "(idle)") return;
    const { url, lineNumber } = original(node.callFrame);
    total += delta;
    const where = moduleOf(url, functionName);
    const name = `${functionName || "(anonymous)"} ${where}${url ? `:${lineNumber + 1}` : ""}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + delta);
    byModule.set(where, (byModule.get(where) ?? 0) + delta);
  });
  const top = (map: Map<string, number>, n: number) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, us]) => `  ${((100 * us) / total).toFixed(1).padStart(5)}%  ${name}`);
  const summary = [
    `CPU profile of the server (${file}), ${(total / 1e6).toFixed(1)} s on CPU, idle excluded:`,
    "By module (self time):",
    ...top(byModule, 15),
    "By function (self time):",
    ...top(byFunction, Number(process.env.BENCH_PROFILE_TOP ?? 20)),
    "",
  ].join("\n");
  writeFileSync(join(RESULTS_DIR, "profile-summary.txt"), summary);
  process.stdout.write(`\n${summary}`);
}

/**
 * The server runs as a bundle (dist/dakiya.mjs and its chunks in dist/chunks/); each file's source
 * map gives a sampled position's source file and line, so the summary names modules and packages
 * as they are in the sources.
 */
function originalPositions(): (frame: ProfileFrame) => { url: string; lineNumber: number } {
  const distUrl = pathToFileURL(join(ROOT, "dist")).href;
  const maps = new Map<string, SourceMap | undefined>();
  const mapOf = (url: string): SourceMap | undefined => {
    if (!maps.has(url)) {
      const mapFile = `${fileURLToPath(url)}.map`;
      maps.set(
        url,
        existsSync(mapFile) ? new SourceMap(JSON.parse(readFileSync(mapFile, "utf8"))) : undefined,
      );
    }
    return maps.get(url);
  };
  return (frame) => {
    if (!frame.url.startsWith(`${distUrl}/`)) return frame;
    const map = mapOf(frame.url);
    if (!map) return frame;
    const entry = map.findEntry(frame.lineNumber, frame.columnNumber) as {
      originalSource?: string;
      originalLine?: number;
    };
    if (entry.originalSource === undefined) return frame;
    // esbuild names sources relative to the map's folder.
    const source = resolve(dirname(fileURLToPath(frame.url)), entry.originalSource);
    return { url: pathToFileURL(source).href, lineNumber: entry.originalLine ?? frame.lineNumber };
  };
}

interface ProfileFrame {
  url: string;
  lineNumber: number;
  columnNumber: number;
}

function moduleOf(url: string, functionName: string): string {
  if (url === "") return functionName.startsWith("(") ? functionName : "(native)";
  // better-sqlite3 runs statements in C++ called from these two frames, so their self time is SQLite's.
  if (url.endsWith("kysely/dist/esm/dialect/sqlite/sqlite-driver.js") && functionName === "executeQuery") {
    return "SQLite: running statements (better-sqlite3, called by kysely)";
  }
  if (url.endsWith("better-sqlite3/lib/methods/wrappers.js") && functionName === "prepare") {
    return "SQLite: preparing statements (better-sqlite3)";
  }
  const path = url.replace(/^file:\/\//, "");
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (pkg?.[1]) return pkg[1];
  if (path.startsWith("node:")) return path;
  if (path.startsWith(ROOT)) return path.slice(ROOT.length);
  return path;
}
