import { sql } from "kysely";
import { prepareQuery } from "../db/prepared.js";
import type { OtpsTable } from "../db/schema.js";
import type { NumberScope } from "./types.js";

/** A number's pending OTP, through the partial index of pending OTPs: what a send or a verification starts from. */
export const pendingOtp = prepareQuery<NumberScope, OtpsTable>((db, param) =>
  db
    .selectFrom("otps")
    .selectAll()
    .where("account_id", "=", param("accountId"))
    .where("environment", "=", param("environment"))
    .where("recipient", "=", param("to"))
    .where("status", "=", sql.lit("pending")),
);
