import { Type } from "typebox";
import { ERROR_STATUS } from "../errors.js";

/** The error envelope of API.md §2, for the OpenAPI document. */
export const ErrorResponse = Type.Object(
  {
    error: Type.Object({
      code: Type.String({ enum: Object.keys(ERROR_STATUS) }),
      message: Type.String(),
      param: Type.Optional(Type.String()),
      retry_after: Type.Optional(Type.Integer({ description: "Seconds to wait, on a 429" })),
      request_id: Type.String(),
    }),
  },
  { description: "Every error has this shape" },
);
