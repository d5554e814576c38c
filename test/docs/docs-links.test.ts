/**
 * Every relative link of README.md and docs/*.md leads somewhere: to a file or folder of the
 * repository and, with a `#anchor`, to a heading of that page (GitHub's anchors). Offline: links
 * to other sites are not followed.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const PAGES = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];

/** The page's text outside fenced code blocks, line by line. */
function proseLines(text: string): string[] {
  const lines: string[] = [];
  let fence: string | undefined;
  for (const line of text.split("\n")) {
    const marker = /^\s*(```+|~~~+)/.exec(line)?.[1];
    if (marker && (fence === undefined || marker.startsWith(fence))) {
      fence = fence === undefined ? marker : undefined;
      continue;
    }
    if (fence === undefined) lines.push(line);
  }
  return lines;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");
}

function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseLines(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = slug(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** The targets of the page's inline links and images, inline code left out. */
function linksOf(text: string): string[] {
  const links: string[] = [];
  for (const line of proseLines(text)) {
    const prose = line.replace(/`[^`]*`/g, "");
    for (const match of prose.matchAll(/!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      if (match[1]) links.push(match[1]);
    }
  }
  return links;
}

function brokenLinks(page: string): string[] {
  const text = readFileSync(join(ROOT, page), "utf8");
  const broken: string[] = [];
  for (const link of linksOf(text)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // https:, mailto: and the like
    const [path = "", anchor] = link.split("#", 2) as [string, string | undefined];
    const target =
      path === "" ? join(ROOT, page) : resolve(dirname(join(ROOT, page)), decodeURIComponent(path));
    if (!target.startsWith(ROOT) || !existsSync(target)) {
      broken.push(`${link}: no file ${relative(ROOT, target)}`);
      continue;
    }
    if (anchor === undefined) continue;
    if (!target.endsWith(".md")) {
      broken.push(`${link}: an anchor into a file that is not a page`);
      continue;
    }
    if (!anchorsOf(readFileSync(target, "utf8")).has(anchor)) {
      broken.push(`${link}: no heading #${anchor} in ${relative(ROOT, target)}`);
    }
  }
  return broken;
}

describe("links in the README and docs/", () => {
  it("reads GitHub's anchors from headings", () => {
    expect(slug("`POST /v2/sms/send`")).toBe("post-v2smssend");
    expect(slug("Secrets: `DAKIYA_SECRET`")).toBe("secrets-dakiya_secret");
    expect(slug("The message's route")).toBe("the-messages-route");
    expect(slug("The message list: `GET /v2/sms`")).toBe("the-message-list-get-v2sms");
    expect([...anchorsOf("# A\n## Setup\n```\n# not a heading\n```\n## Setup\n")]).toEqual([
      "a",
      "setup",
      "setup-1",
    ]);
  });

  it("finds links outside code, and only there", () => {
    const text = "See [a](a.md#x) and `[b](b.md)`.\n```\n[c](c.md)\n```\n![d](img.png) [e](<e.md>)";
    expect(linksOf(text)).toEqual(["a.md#x", "img.png", "e.md"]);
  });

  it.each(PAGES)("every relative link of %s resolves", (page) => {
    expect(brokenLinks(page)).toEqual([]);
  });
});
