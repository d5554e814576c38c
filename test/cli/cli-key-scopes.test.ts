import { describe, expect, it } from "vitest";
import { cliAccount, json, oneLineError } from "../helpers/cli.js";

const SLOW = 60_000;

interface KeyJson {
  id: string;
  scope: string;
  allowed_ips: string[] | null;
  secret?: string;
}

describe("dakiya keys: scopes and allowed IPs", () => {
  const cli = cliAccount();

  it(
    "creates a key with a scope and an allowlist, lists them, and keeps them through a rotation",
    async () => {
      const created = json<KeyJson>(
        await cli.dakiya(
          "--json",
          "keys",
          "create",
          "--account",
          cli.accountId,
          "--environment",
          "sandbox",
          "--scope",
          "send",
          "--allow-ip",
          "203.0.113.0/24",
          "--allow-ip",
          "2001:DB8::/32",
        ),
      );
      expect(created).toMatchObject({ scope: "send", allowed_ips: ["203.0.113.0/24", "2001:db8::/32"] });
      const plain = json<KeyJson>(
        await cli.dakiya("--json", "keys", "create", "--account", cli.accountId, "--environment", "live"),
      );
      expect(plain).toMatchObject({ scope: "full", allowed_ips: null });

      const listed = json<{ data: KeyJson[] }>(
        await cli.dakiya("--json", "keys", "list", "--account", cli.accountId),
      );
      expect(listed.data.find((key) => key.id === created.id)).toMatchObject({
        scope: "send",
        allowed_ips: ["203.0.113.0/24", "2001:db8::/32"],
      });
      const human = await cli.dakiya("keys", "list", "--account", cli.accountId);
      expect(human.stdout).toContain(`${created.id} sandbox`);
      expect(human.stdout).toContain("scope send from 203.0.113.0/24 2001:db8::/32");
      expect(human.stdout).toContain("scope full from any address");

      const rotated = json<KeyJson>(
        await cli.dakiya("--json", "keys", "rotate", "--account", cli.accountId, "--key", created.id),
      );
      expect(rotated.id).not.toBe(created.id);
      expect(rotated).toMatchObject({ scope: "send", allowed_ips: ["203.0.113.0/24", "2001:db8::/32"] });
    },
    SLOW,
  );

  it(
    "refuses a bad scope or address in one line that says what to write, and makes no key",
    async () => {
      const create = (...args: string[]) =>
        cli.dakiya(
          "--json",
          "keys",
          "create",
          "--account",
          cli.accountId,
          "--environment",
          "sandbox",
          ...args,
        );
      const before = json<{ data: KeyJson[] }>(
        await cli.dakiya("--json", "keys", "list", "--account", cli.accountId),
      );
      const [hostBits, scope, garbage, tooMany] = await Promise.all([
        create("--allow-ip", "203.0.113.7/24"),
        create("--scope", "admin"),
        create("--allow-ip", "localhost"),
        create(...Array.from({ length: 21 }, (_, i) => ["--allow-ip", `198.51.100.${i}`]).flat()),
      ]);
      expect(oneLineError(hostBits)).toMatch(/^dakiya: .*203\.0\.113\.0\/24/);
      expect(oneLineError(scope)).toMatch(/^dakiya: .*full, send, read/);
      expect(oneLineError(garbage)).toMatch(/^dakiya: .*"localhost" is not an IPv4 or IPv6 address/);
      expect(oneLineError(tooMany)).toMatch(/^dakiya: .*at most 20/);
      const after = json<{ data: KeyJson[] }>(
        await cli.dakiya("--json", "keys", "list", "--account", cli.accountId),
      );
      expect(after.data.length).toBe(before.data.length);
    },
    SLOW,
  );
});
