/**
 * Which placeholder of a template an OTP's code fills (docs/otp.md#the-sms-template): DLT portals
 * approve OTP templates with a bare `{#var#}` (stored `{#var1#}`) or, since November 2025, a typed
 * tag, so any template with exactly one placeholder that can hold digits will do. Links, callback
 * numbers and e-mail addresses cannot. This module imports nothing: the console uses it too.
 */

const NOT_A_CODE = /^(?:url|urlott|cbn|email)[1-9][0-9]*$/;

/** The placeholder the code goes in, or undefined when the template cannot carry a code. */
export function otpCodeSlot(placeholders: readonly string[]): string | undefined {
  if (placeholders.length !== 1) return undefined;
  const [slot] = placeholders;
  return slot === undefined || NOT_A_CODE.test(slot) ? undefined : slot;
}

/** Why a template with these placeholders cannot carry an OTP's code: for error messages. */
export function otpSlotProblem(placeholders: readonly string[]): string {
  const listed = placeholders.map((p) => `{#${p}#}`).join(", ") || "none";
  return placeholders.length === 1
    ? `its only placeholder, ${listed}, holds a link, number or address, not a code`
    : `an OTP template has exactly one placeholder for the code (such as {#var#}, {#numeric#} or {#otp#}); it has ${listed}`;
}
