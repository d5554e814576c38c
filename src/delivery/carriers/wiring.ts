import type { Config } from "../../config.js";
import type { AppContext } from "../../context.js";
import { receiptsInBursts } from "../../receipts/receipts.js";
import type { Carriers } from "../carrier.js";
import { meteredCarrier } from "../metered-carrier.js";
import { createSandboxCarrier } from "./sandbox.js";
import { createSmppCarrier } from "./smpp.js";
import { createVoiceCarrier } from "./voice.js";
import { createWhatsAppCarrier } from "./whatsapp.js";

/** The carrier settings of the configuration; a channel left `undefined` has no live carrier. */
export type CarrierSettings = Partial<Pick<Config, "smpp" | "whatsapp" | "voice">>;

/**
 * The carriers a delivery worker sends through: the sandbox inbox, and a live carrier for each
 * channel the settings configure (the channels `AppContext.liveChannels` lists for the same
 * configuration). `live` puts carriers of the caller's own on channels (tests do).
 */
export function createCarriers(
  ctx: AppContext,
  settings: CarrierSettings,
  live: Carriers["live"] = {},
): Carriers {
  const carriers: Carriers["live"] = { ...live };
  if (settings.smpp && !carriers.sms) {
    carriers.sms = createSmppCarrier(settings.smpp, {
      log: ctx.log,
      // An SMSC sends receipts as fast as it submits: those that come in together share a transaction.
      onReceipt: receiptsInBursts(ctx),
      meter: ctx.metrics.carriers,
      clock: ctx.clock,
    });
  }
  // One provider API each: their submits are counted under a route named after the carrier.
  if (settings.whatsapp && !carriers.whatsapp) {
    const whatsapp = createWhatsAppCarrier(settings.whatsapp, { log: ctx.log });
    carriers.whatsapp = meteredCarrier(whatsapp, ctx.metrics.carriers);
  }
  if (settings.voice && !carriers.voice) {
    const voice = createVoiceCarrier(settings.voice, { log: ctx.log });
    carriers.voice = meteredCarrier(voice, ctx.metrics.carriers);
  }
  return { sandbox: createSandboxCarrier(), live: carriers };
}
