import type { MessagesTable } from "../db/schema.js";
import type { CtaWhitelist } from "../dlt/cta/match.js";
import type { Template } from "../dlt/registry.js";
import type { MessageView } from "../messages/store.js";
import type { SendTimingRequest } from "./timing.js";

export interface SmsSendRequest extends SendTimingRequest {
  to: string;
  sender: string;
  template_id: string;
  variables?: Record<string, string>;
  reference?: string;
}

/** What the account's DLT registry says about a send: whether its sender is registered, and its template. */
export interface SendRegistry {
  senderKnown: boolean;
  template: Template | undefined;
  /** The account's CTA whitelist: read (`ctaWhitelistFor`) when the template has a CTA slot. */
  cta?: CtaWhitelist;
}

/** A send that passed every check, rendered and priced: its message row and the view the API answers. */
export interface PreparedSms {
  row: MessagesTable;
  view: MessageView;
}
