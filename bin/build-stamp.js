// Whether dist/ holds a build of the sources as they are: `npm run build:server` writes
// dist/build-stamp.json with a listing of what it read (each input's path, size and modification
// time), and bin/dakiya.js compares it with the listing of the files now. Any edit, checkout,
// deletion or new file changes it. Listing 200-odd files costs 2 to 5 ms at start, where reading
// them to hash their contents would cost several times that (and loading node:crypto more again).
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";

/** What the bundle is built from: the sources, the build's own settings and the locked packages. */
const INPUT_FOLDERS = ["src"];
const INPUT_FILES = ["scripts/build-server.ts", "package-lock.json"];

export const STAMP_FILE = "dist/build-stamp.json";

/** The listing of the build's inputs under `root`; `undefined` when there are none (an install of dist/ alone). */
export function sourceListing(root) {
  const lines = [];
  const addFile = (relative) => {
    const stat = statSync(`${root}/${relative}`, { throwIfNoEntry: false });
    if (stat?.isFile()) lines.push(`${relative}\t${stat.size}\t${stat.mtimeMs}`);
  };
  // One directory at a time: readdirSync's own `recursive` is several times slower on Node 20.
  const addFolder = (relative) => {
    const entries = readdirSync(`${root}/${relative}`, { withFileTypes: true });
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (entry.isDirectory()) addFolder(`${relative}/${entry.name}`);
      else addFile(`${relative}/${entry.name}`);
    }
  };
  for (const folder of INPUT_FOLDERS) {
    if (statSync(`${root}/${folder}`, { throwIfNoEntry: false })?.isDirectory()) addFolder(folder);
  }
  for (const file of INPUT_FILES) addFile(file);
  return lines.length === 0 ? undefined : lines.join("\n");
}

/** The listing the last build recorded, or `undefined` when there is no stamp. */
export function stampedListing(root) {
  try {
    return JSON.parse(readFileSync(`${root}/${STAMP_FILE}`, "utf8")).sources;
  } catch {
    return undefined;
  }
}

/** Records `sources` (a listing taken before the build read them) as what dist/ was built from. */
export function writeBuildStamp(root, sources) {
  writeFileSync(
    `${root}/${STAMP_FILE}`,
    `${JSON.stringify({ sources, built_at: new Date().toISOString() })}\n`,
  );
}
