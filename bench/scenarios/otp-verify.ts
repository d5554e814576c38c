// otp-verify: OTPs made beforehand through the API with codes the bench knows, then verified in
// turn with wrong codes, the right one, and wrong ones again on the verified OTP.

import { type ApiScenario, verifyOutcome } from "../api.js";
import { fail } from "../lifecycle.js";

/** OTPs created with known codes before the otp-verify scenario, one number each, at most… */
const VERIFY_NUMBERS = 10_000;
/** …and for at most this long (OTP sends are slow on PostgreSQL). */
const VERIFY_SETUP_SECONDS = 10;
/**
 * Number i gets (i % VERIFY_WRONG_CYCLE) wrong codes, then the right one, then wrong ones again
 * (answered `already_verified`): a spread of first, second… attempts that succeed.
 */
const VERIFY_WRONG_CYCLE = 6;

function verifyNumber(index: number): string {
  return `+9196${String(index).padStart(8, "0")}`;
}

function verifyCode(index: number): string {
  return String(100_000 + ((index * 7_919) % 900_000));
}

function wrongCode(index: number): string {
  return String(100_000 + ((index * 7_919 + 1) % 900_000));
}

/** Creates the OTPs of otp-verify through the API, with the caller-supplied codes, 50 at a time. */
export async function createVerifyOtps(baseUrl: string, headers: Record<string, string>): Promise<number> {
  let next = 0;
  let created = 0;
  const deadline = Date.now() + VERIFY_SETUP_SECONDS * 1000;
  const worker = async () => {
    for (;;) {
      // Numbers are taken in order, so the OTPs made are those of numbers 0 … created - 1.
      if (Date.now() >= deadline) return;
      const index = next++;
      if (index >= VERIFY_NUMBERS) return;
      const response = await fetch(`${baseUrl}/v2/otp/send`, {
        method: "POST",
        headers,
        body: JSON.stringify({ to: verifyNumber(index), code: verifyCode(index) }),
        signal: AbortSignal.timeout(10_000),
      });
      const text = await response.text();
      if (response.status !== 200)
        fail(`creating the OTPs of otp-verify: ${response.status} ${text.slice(0, 300)}`);
      created += 1;
    }
  };
  await Promise.all(Array.from({ length: 50 }, worker));
  return created;
}

/** The scenario over the `created` OTPs that createVerifyOtps made. */
export function otpVerifyScenario(created: number, headers: Record<string, string>): ApiScenario {
  return {
    name: "otp-verify",
    description: `POST /v2/otp/verify with a sandbox key on ${created} OTPs made beforehand through the API with known codes, taken in turn: number i gets i % ${VERIFY_WRONG_CYCLE} wrong codes, then the right one, then wrong ones again on the verified OTP`,
    method: "POST",
    path: "/v2/otp/verify",
    headers,
    body: (n) => {
      const index = n % created;
      const pass = Math.floor(n / created);
      const code = pass === index % VERIFY_WRONG_CYCLE ? verifyCode(index) : wrongCode(index);
      return JSON.stringify({ to: verifyNumber(index), code });
    },
    outcome: verifyOutcome,
  };
}
