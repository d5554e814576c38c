import { newId } from "../../lib/ids.js";
import type { Carrier, OutboundMessage, Receipt, SendResult } from "../carrier.js";

export const SANDBOX_CARRIER = "sandbox";

/** The sandbox test numbers of docs/api-reference.md#sandbox and what each does. */
const TEST_NUMBERS: Record<string, "invalid_number" | "dnd_blocked" | "carrier_rejected" | "no_receipt"> = {
  "+919999999911": "invalid_number",
  "+919999999922": "dnd_blocked",
  "+919999999933": "carrier_rejected",
  "+919999999944": "no_receipt",
};

/**
 * Delivers into the sandbox inbox and never off the machine. Outcomes go through the same
 * paths a real carrier's answers take: acceptance, receipts, permanent failure. It writes
 * nothing itself: the inbox entry it answers with is stored with the acceptance, so a message
 * gets one entry however often a crash or a lost lease makes it be sent again.
 */
export function createSandboxCarrier(): Carrier {
  return {
    name: SANDBOX_CARRIER,
    async send(message: OutboundMessage): Promise<SendResult> {
      const behaviour = TEST_NUMBERS[message.to];
      if (behaviour === "carrier_rejected") {
        return {
          outcome: "permanent",
          errorCode: "carrier_rejected",
          errorMessage: "The carrier rejected the message.",
        };
      }
      const carrierMessageId = newId("sbx");
      return {
        outcome: "accepted",
        carrierMessageIds: [carrierMessageId],
        receipts: receiptFor(carrierMessageId, behaviour),
        inbox: {
          id: carrierMessageId,
          accountId: message.accountId,
          channel: message.channel,
          to: message.to,
          text: message.text,
        },
      };
    },
  };
}

function receiptFor(
  carrierMessageId: string,
  behaviour: (typeof TEST_NUMBERS)[string] | undefined,
): Receipt[] {
  const receipt = { carrier: SANDBOX_CARRIER, carrierMessageId };
  switch (behaviour) {
    case "no_receipt":
      return [];
    case "invalid_number":
      return [
        {
          ...receipt,
          state: "undelivered",
          errorCode: "invalid_number",
          errorMessage: "The number does not exist.",
        },
      ];
    case "dnd_blocked":
      return [
        {
          ...receipt,
          state: "undelivered",
          errorCode: "dnd_blocked",
          errorMessage: "The number is on the DND registry.",
        },
      ];
    default:
      return [{ ...receipt, state: "delivered" }];
  }
}
