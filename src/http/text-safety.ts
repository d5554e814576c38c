import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { ApiError } from "../errors.js";
import { sendError } from "./error-handler.js";
import type { App } from "./types.js";

/**
 * U+0000, or a UTF-16 surrogate without its partner. PostgreSQL's text cannot hold a NUL (the
 * query fails) and UTF-8 cannot hold a lone surrogate (it is stored as U+FFFD, so what was priced
 * and checked is not what is kept and sent).
 */
const UNSTORABLE = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** A quick first look, one character class per string: only a hit (a NUL, or any surrogate) is looked at closely. */
const SUSPECT = /[\0\uD800-\uDFFF]/;
/** `%00` in the raw address: a NUL anywhere in the path or query, whichever part ends up reading it. */
const ENCODED_NUL = /%00|\0/;

function problemIn(text: string): string {
  return text.includes("\0")
    ? "a NUL character (U+0000)"
    : "an unpaired UTF-16 surrogate (broken Unicode; send well-formed UTF-8)";
}

interface Finding {
  /** Dotted path of the value, or of the object whose field name is at fault ("" = the top level). */
  path: string;
  inKey: boolean;
  text: string;
}

/**
 * Whether any string or field name in a parsed JSON value (or a query/params object) holds a NUL
 * or a surrogate. Iterative, so a deeply nested body cannot exhaust the stack.
 */
function hasSuspectText(root: unknown): boolean {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === "string") {
      if (SUSPECT.test(value)) return true;
    } else if (Array.isArray(value)) {
      for (const item of value) stack.push(item);
    } else if (isRecord(value)) {
      for (const key in value) {
        if (SUSPECT.test(key)) return true;
        stack.push(value[key]);
      }
    }
  }
  return false;
}

/** The first string or field name in a parsed value that cannot be stored, with where it is. */
export function findUnstorableText(root: unknown): Finding | undefined {
  if (!hasSuspectText(root)) return undefined;
  const stack: Array<[unknown, string]> = [[root, ""]];
  while (stack.length > 0) {
    const [value, path] = stack.pop() as [unknown, string];
    if (typeof value === "string") {
      if (UNSTORABLE.test(value)) return { path, inKey: false, text: value };
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push([value[i], join(path, String(i))]);
    } else if (isRecord(value)) {
      const entries = Object.entries(value);
      for (const [key] of entries) {
        if (UNSTORABLE.test(key)) return { path, inKey: true, text: key };
      }
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i] as [string, unknown];
        stack.push([child, join(path, key)]);
      }
    }
  }
  return undefined;
}

/**
 * A parsed JSON object or a query/params record. A raw body kept as bytes (the signed WhatsApp
 * webhook's Buffer) is not text yet, and walking it byte by byte would be slow: it is skipped.
 */
function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !ArrayBuffer.isView(value);
}

function join(path: string, key: string): string {
  return path === "" ? key : `${path}.${key}`;
}

function refusal(where: string, finding: Finding): ApiError {
  const problem = problemIn(finding.text);
  if (finding.inKey) {
    const owner = finding.path === "" ? `The ${where}` : finding.path;
    return new ApiError(
      "invalid_request",
      `${owner} has a field name with ${problem}.`,
      finding.path === "" ? undefined : finding.path,
    );
  }
  return new ApiError("invalid_request", `${finding.path} contains ${problem}.`, finding.path);
}

function checkRequest(request: FastifyRequest): void {
  const { params, query, body } = request;
  // Nearly every request holds nothing suspect: one quick look at each part, and done.
  if (
    !hasSuspectText(params) &&
    !hasSuspectText(query) &&
    !hasSuspectText(body) &&
    !ENCODED_NUL.test(request.url)
  ) {
    return;
  }
  const parts: Array<[string, unknown]> = [
    ["path", params],
    ["query string", query],
    ["body", body],
  ];
  for (const [where, value] of parts) {
    const finding = findUnstorableText(value);
    // The wildcard of an unmatched or static address names no field the caller knows of.
    if (finding && !(where === "path" && finding.path === "*")) throw refusal(where, finding);
  }
  if (ENCODED_NUL.test(request.url)) throw addressRefusal();
  if (findUnstorableText(params)) throw addressRefusal();
}

function addressRefusal(): ApiError {
  return new ApiError("invalid_request", "The address contains a NUL character (%00) or broken Unicode.");
}

/** Strict: a byte sequence that is not UTF-8 throws instead of becoming U+FFFD. A BOM is left for the JSON parser, as before. */
const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * JSON bodies are read as bytes and decoded as strict UTF-8, then parsed by Fastify's own JSON
 * parser (same limits, same prototype-poisoning checks). Fastify's default decoding would turn
 * every byte sequence that is not UTF-8 into U+FFFD: what was checked and priced would not be
 * what the client sent. Such a body is refused with 400 `invalid_request`, like a lone surrogate
 * written as a JSON escape (above). Routes that read their body as raw bytes (the signed WhatsApp
 * webhook) replace this parser in their own scope.
 */
export function registerUtf8Json(app: App): void {
  const parseJson = app.getDefaultJsonParser("error", "error");
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "buffer" }, (request, body, done) => {
    // An empty body is no body, which json-body.ts takes as `{}`.
    if ((body as Buffer).length === 0) return done(null, undefined);
    let text: string;
    try {
      text = UTF8.decode(body as Buffer);
    } catch {
      done(
        new ApiError("invalid_request", "The body is not valid UTF-8; send JSON text encoded as UTF-8."),
        undefined,
      );
      return;
    }
    parseJson(request, text, done);
  });
}

/**
 * Refuses, with 400 `invalid_request`, any request whose path parameters, query string or JSON
 * body (values and field names) hold a NUL or a lone surrogate, on every route, before schema
 * validation, idempotency and the handler. Addresses no route matches are checked too.
 */
export function registerTextSafety(app: App): void {
  app.addHook("preValidation", (request, _reply, done) => {
    checkRequest(request);
    done();
  });
}

/**
 * The router's own refusals, before any hook runs, in the error envelope: an address whose
 * percent-encoding is not UTF-8 (e.g. an encoded lone surrogate, `%ED%A0%80`), or a path segment
 * over the router's length limit. Passed to Fastify as `frameworkErrors`.
 */
export function answerFrameworkError(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  const apiError =
    error.code === "FST_ERR_BAD_URL"
      ? new ApiError("invalid_request", "The address is not valid: its percent-encoding is not UTF-8.")
      : error.code === "FST_ERR_MAX_PARAM_LENGTH"
        ? new ApiError("invalid_request", "A part of the address is too long.")
        : new ApiError("internal_error", "Something went wrong on our side; it has been logged.");
  if (apiError.status >= 500) request.log.error({ err: error }, "request failed");
  // No route was found, so no onSend hook adds the request id: add it here.
  reply.header("X-Request-Id", request.id);
  sendError(request, reply, apiError);
}
