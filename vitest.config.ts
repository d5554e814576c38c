import { defineConfig } from "vitest/config";

/**
 * The long files: races and crash runs (kill -9 mid-load), soaks, a 20,000-message campaign whose
 * latencies are measured, and the SDK installed into fresh projects. They run one at a time, after
 * the rest (`npm run test:long`; CI runs both), so that a loaded machine neither slows the quick
 * suite nor blurs what they measure.
 */
const LONG = [
  "test/campaigns/campaign-crash.test.ts",
  "test/delivery/otp-during-campaign.test.ts",
  "test/idempotency/idempotency-crash.test.ts",
  "test/keys/rate-limit-processes.test.ts",
  "test/otp/otp-races.test.ts",
  "test/otp/verify-crash.test.ts",
  "test/sdk/sdk-install.test.ts",
  "test/sms/send-crash.test.ts",
  "test/sms/sms-races.test.ts",
  "test/webhooks/webhooks-races.test.ts",
  "test/webhooks/webhooks-workers.test.ts",
];

export default defineConfig({
  test: {
    // dist/ built from the sources as they are, for the dakiya processes tests start.
    globalSetup: ["test/helpers/server-build.ts"],
    pool: "forks",
    // Most files wait on sockets, timers and Chromium more than they compute: three at once on
    // two cores finish the quick suite in about half the time of one at once.
    maxWorkers: 3,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // What a page or a worker shows "soon": a loaded machine (three files at once, Chromium) may
    // take seconds where an idle one takes milliseconds.
    expect: { poll: { timeout: 10_000 } },
    projects: [
      { extends: true, test: { name: "quick", include: ["test/**/*.test.ts"], exclude: LONG } },
      { extends: true, test: { name: "long", include: LONG, fileParallelism: false } },
    ],
  },
});
