import { execFile } from "node:child_process";
import {
  appendFileSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sourceListing, stampedListing, writeBuildStamp } from "../../bin/build-stamp.js";
import { ROOT } from "../helpers/cli.js";

const execFileAsync = promisify(execFile);
const SLOW = 60_000;

/**
 * bin/dakiya.js in a folder of its own: its launcher and stamp code, node_modules (for tsx), a
 * "source" entry that says `sources` (in TypeScript, so only tsx runs it) and a "build" that says
 * `build`, stamped as `npm run build:server` stamps one.
 */
describe("bin/dakiya.js: the build when it is current, else the sources", () => {
  let root: string;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "dakiya-launcher-"));
    mkdirSync(join(root, "bin"));
    for (const file of ["dakiya.js", "build-stamp.js"])
      copyFileSync(join(ROOT, "bin", file), join(root, "bin", file));
    writeFileSync(join(root, "package.json"), JSON.stringify({ type: "module" }));
    symlinkSync(join(ROOT, "node_modules"), join(root, "node_modules"));
    mkdirSync(join(root, "src", "lib"), { recursive: true });
    writeFileSync(join(root, "src", "main.ts"), 'const said: string = "sources";\nconsole.log(said);\n');
    writeFileSync(join(root, "src", "lib", "part.ts"), "export const part = 1;\n");
    mkdirSync(join(root, "dist"));
    writeFileSync(join(root, "dist", "dakiya.mjs"), 'console.log("build");\n');
    writeBuildStamp(root, sourceListing(root));
  });

  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
  });

  async function launch(env: NodeJS.ProcessEnv = {}): Promise<{ stdout: string; stderr: string }> {
    const { DAKIYA_FROM_SOURCE: _, ...inherited } = process.env;
    return execFileAsync(process.execPath, [join(root, "bin", "dakiya.js")], {
      cwd: root,
      env: { ...inherited, ...env },
      timeout: SLOW,
    });
  }

  const STALE =
    /^dakiya: dist\/ was built from other sources, running them through tsx \(npm run build:server rebuilds it\)\n$/;

  it("runs the build, silently, when its stamp lists the sources as they are", async () => {
    expect(await launch()).toEqual({ stdout: "build\n", stderr: "" });
  });

  it(
    "runs the sources, silently, with DAKIYA_FROM_SOURCE=1",
    async () => {
      expect(await launch({ DAKIYA_FROM_SOURCE: "1" })).toEqual({ stdout: "sources\n", stderr: "" });
    },
    SLOW,
  );

  it(
    "runs the sources and says so in one line once a source has changed, until it is built again",
    async () => {
      appendFileSync(join(root, "src", "lib", "part.ts"), "export const more = 2;\n");
      const stale = await launch();
      expect(stale.stdout).toBe("sources\n");
      expect(stale.stderr).toMatch(STALE);

      writeBuildStamp(root, sourceListing(root));
      expect(await launch()).toEqual({ stdout: "build\n", stderr: "" });
    },
    SLOW,
  );

  it("counts a file touched, added or removed as a change, and nothing else", () => {
    const built = stampedListing(root);
    expect(sourceListing(root)).toBe(built);

    const part = join(root, "src", "lib", "part.ts");
    utimesSync(part, new Date(), new Date(Date.now() + 5_000));
    expect(sourceListing(root)).not.toBe(built);
    writeBuildStamp(root, sourceListing(root));

    const touched = stampedListing(root);
    writeFileSync(join(root, "src", "lib", "new.ts"), "export {};\n");
    expect(sourceListing(root)).not.toBe(touched);
    rmSync(join(root, "src", "lib", "new.ts"));
    expect(sourceListing(root)).toBe(touched);
    rmSync(part);
    expect(sourceListing(root)).not.toBe(touched);

    // What the bundle does not read (the dashboard, the tests, dist/ itself) is not listed.
    const now = sourceListing(root);
    mkdirSync(join(root, "web"));
    writeFileSync(join(root, "web", "app.tsx"), "export {};\n");
    writeFileSync(join(root, "dist", "dakiya.mjs.map"), "{}");
    expect(sourceListing(root)).toBe(now);
  });

  it(
    "runs the sources and says so when there is no build",
    async () => {
      rmSync(join(root, "dist", "dakiya.mjs"));
      const result = await launch();
      expect(result.stdout).toBe("sources\n");
      expect(result.stderr).toMatch(
        /^dakiya: no build in dist\/, running the sources through tsx \(npm run build:server builds it\)\n$/,
      );
    },
    SLOW,
  );

  it("runs the build when it was installed without the sources", async () => {
    rmSync(join(root, "src"), { recursive: true });
    expect(await launch()).toEqual({ stdout: "build\n", stderr: "" });
  });
});
