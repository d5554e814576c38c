import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWebhookDispatcher } from "../../src/webhooks/dispatcher.js";
import { cliAccount, cliRunner, json, oneLineError } from "../helpers/cli.js";
import { openTestContext } from "../helpers/context.js";
import { waitFor } from "../helpers/delivery.js";
import { nth, startReceiver, verify, type WebhookReceiver } from "../helpers/webhook-receiver.js";

/* `dakiya webhooks add|list|remove|test`, as an operator types them. */

const SLOW = 180_000;

interface PrintedEndpoint {
  id: string;
  environment: string;
  url: string;
  events: string[];
  description: string | null;
  status: string;
  secret?: string;
}

const cli = cliAccount();
const { dakiya } = cli;
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startReceiver();
});

afterAll(async () => {
  await receiver?.close();
});

describe("dakiya webhooks", () => {
  it(
    "adds an endpoint with its secret, lists it, sends it a test event and removes it",
    async () => {
      const allowPrivate = { ...cli.env, WEBHOOK_ALLOW_PRIVATE: "true" };
      const added = json<PrintedEndpoint>(
        await cliRunner(() => allowPrivate).dakiya(
          "--json",
          "webhooks",
          "add",
          "--account",
          cli.accountId,
          "--environment",
          "sandbox",
          "--url",
          receiver.url,
          "--events",
          "sms.delivered, otp.verified",
          "--description",
          "orders",
        ),
      );
      expect(added).toMatchObject({
        id: expect.stringMatching(/^whk_/),
        environment: "sandbox",
        url: receiver.url,
        events: ["sms.delivered", "otp.verified"],
        description: "orders",
        status: "enabled",
        secret: expect.stringMatching(/^whsec_/),
      });

      const human = await dakiya("webhooks", "list", "--account", cli.accountId);
      expect(human.code).toBe(0);
      expect(human.stdout).toContain(
        `${added.id} sandbox enabled ${receiver.url} [sms.delivered, otp.verified] "orders"`,
      );
      const listed = json<{ data: PrintedEndpoint[] }>(
        await dakiya("--json", "webhooks", "list", "--account", cli.accountId, "--environment", "sandbox"),
      );
      expect(listed.data.map((endpoint) => endpoint.id)).toEqual([added.id]);
      expect(listed.data[0]).not.toHaveProperty("secret");
      const live = json<{ data: PrintedEndpoint[] }>(
        await dakiya("--json", "webhooks", "list", "--account", cli.accountId, "--environment", "live"),
      );
      expect(live.data).toEqual([]);

      const queued = json<{ id: string; type: string; data: object }>(
        await dakiya("--json", "webhooks", "test", "--account", cli.accountId, "--webhook", added.id),
      );
      expect(queued).toMatchObject({ type: "webhook.test", data: { webhook_id: added.id } });
      // A worker delivers it, signed with the secret `add` printed.
      const ctx = await openTestContext(cli.database.url, {
        clock: { now: () => new Date() },
        env: { WEBHOOK_ALLOW_PRIVATE: "true", DAKIYA_SECRET: cli.env.DAKIYA_SECRET },
      });
      const dispatcher = startWebhookDispatcher(ctx, { owner: "wkr_cli_test", pollIntervalMs: 10 });
      try {
        await waitFor(async () => receiver.received.length === 1, 15_000);
      } finally {
        await dispatcher.stop();
        await ctx.close();
      }
      expect(verify(added.secret ?? "", nth(receiver.received, 0))).toMatchObject({
        id: queued.id,
        type: "webhook.test",
      });

      expect(
        json(await dakiya("--json", "webhooks", "remove", "--account", cli.accountId, "--webhook", added.id)),
      ).toEqual({
        id: added.id,
        deleted: true,
      });
      expect(
        oneLineError(await dakiya("webhooks", "remove", "--account", cli.accountId, "--webhook", added.id)),
      ).toBe(`dakiya: No webhook endpoint ${added.id}.`);
    },
    SLOW,
  );

  it(
    "refuses bad input with one line: private URLs, unknown accounts and events, a missing environment",
    async () => {
      const add = (...args: string[]) => dakiya("webhooks", "add", "--account", cli.accountId, ...args);
      expect(
        oneLineError(await add("--environment", "sandbox", "--url", "http://localhost:8080/hooks")),
      ).toMatch(
        /url is not allowed: localhost is a name for this machine.*unless the operator sets WEBHOOK_ALLOW_PRIVATE=true/,
      );
      expect(oneLineError(await add("--environment", "live", "--url", "http://93.184.216.34/hooks"))).toMatch(
        /https:\/\//,
      );
      expect(
        oneLineError(
          await add("--environment", "sandbox", "--url", "https://93.184.216.34/", "--events", "sms.sent"),
        ),
      ).toMatch(/Unknown event type "sms.sent"/);
      expect(oneLineError(await add("--url", "https://93.184.216.34/"))).toMatch(/--environment/);
      expect(
        oneLineError(
          await dakiya(
            "webhooks",
            "add",
            "--account",
            "acct_nobody",
            "--environment",
            "sandbox",
            "--url",
            "https://93.184.216.34/",
          ),
        ),
      ).toBe("dakiya: No account acct_nobody.");
      expect(
        oneLineError(await dakiya("webhooks", "test", "--account", cli.accountId, "--webhook", "whk_nope")),
      ).toBe("dakiya: No webhook endpoint whk_nope.");
    },
    SLOW,
  );
});
