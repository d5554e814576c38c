import swagger from "@fastify/swagger";
import type { FastifyApiReferenceOptions } from "@scalar/fastify-api-reference";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import type { AppContext } from "../context.js";
import { documentOperation } from "./openapi-operations.js";
import { tidyDocument } from "./openapi-tidy.js";
import type { App } from "./types.js";

/** Where the API reference page is served (the README gives this address). */
export const DOCS_PATH = "/docs";
export const OPENAPI_PATH = "/openapi.json";

const TAGS = [
  {
    name: "SMS",
    description:
      "DLT-templated SMS: every message goes out under a registered sender (header) and content template. Sends are checked, priced per segment, charged and queued at once; the status moves `queued → submitted → delivered`, or ends `failed` (refunded) or `undelivered`.",
  },
  {
    name: "OTP",
    description:
      "One-time passcodes by SMS, WhatsApp or voice, with an optional fallback channel. The code is never stored in clear or returned; sandbox deliveries show it in the sandbox inbox.",
  },
  {
    name: "Balance",
    description: "Prepaid credits in INR, one balance per environment (`live`, `sandbox`).",
  },
  {
    name: "Events",
    description:
      "Every status change of messages and OTPs, kept 30 days, to catch up on what a webhook missed.",
  },
  {
    name: "Webhooks",
    description:
      "Endpoints that receive events, signed per Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`), retried for about a day.",
  },
  {
    name: "Sandbox",
    description:
      "What sandbox keys sent. Nothing leaves the machine; the test numbers +919999999911 (undelivered, invalid_number), +919999999922 (undelivered, dnd_blocked), +919999999933 (failed, carrier_rejected, refunded) and +919999999944 (stays submitted) rehearse failures.",
  },
  {
    name: "Reports",
    description:
      "Messages and OTPs counted by India-time day, template, sender, status or channel, exact at any moment and answered from daily totals, never by scanning messages.",
  },
  { name: "Operations", description: "Health checks for load balancers and orchestrators (no API key)." },
];

const DESCRIPTION = `Messaging API for India: DLT-templated SMS, one-time passcodes by SMS, WhatsApp and voice, sandbox and live environments, prepaid INR credits.

Every \`/v2/\` request needs \`Authorization: Bearer <key>\` (\`dk_live_…\` or \`dk_sandbox_…\`); the key's environment decides which balance pays and whether delivery is real. Bodies are JSON (\`Content-Type: application/json\`), at most 16 KiB (1 MiB on \`/v2/sms/batch\`); money is a string of INR with 4 decimals (\`"0.2500"\`); times are RFC 3339 UTC. Every answer carries \`X-Request-Id\`, and every error is \`{"error": {"code", "message", "param", "request_id"}}\`.

The examples work as they are with a sandbox key once the walk-through's sender \`DAKIYA\`, templates \`1107161234567890123\` and \`1107161234567890999\` and OTP settings are registered (see the README).`;

/** Dakiya's mark, as the dashboard shows it. */
const LOGO_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="8" fill="#4f46e5"/><path d="M8 11.5h16v10H8z" fill="none" stroke="#fff" stroke-width="2" stroke-linejoin="round"/><path d="M8.5 12l7.5 5.5 7.5-5.5" fill="none" stroke="#fff" stroke-width="2" stroke-linejoin="round"/></svg>';
const LOGO_URL = `data:image/svg+xml,${encodeURIComponent(LOGO_SVG)}`;

/** Dakiya's colours and mark on the reference page; system fonts, since nothing is fetched from elsewhere. */
const BRAND_CSS = `
.light-mode, .dark-mode {
  --scalar-font: ui-sans-serif, system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif;
  --scalar-font-code: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
}
.light-mode { --scalar-color-accent: #4f46e5; --scalar-background-accent: #eef0ff; }
.dark-mode { --scalar-color-accent: #a5b4fc; --scalar-background-accent: #4f46e51f; }
.t-doc__sidebar::before {
  content: "Dakiya API";
  display: flex;
  align-items: center;
  gap: 10px;
  min-height: 28px;
  padding: 14px 16px 6px 54px;
  font-weight: 600;
  font-size: 16px;
  color: var(--scalar-color-1);
  background: url("${LOGO_URL}") no-repeat 16px 12px / 28px 28px;
}
`;

/**
 * The OpenAPI 3 document at `/openapi.json`, built from the route schemas (dashboard and provider
 * routes are hidden), and the branded reference page at `/docs`, whose script is served from
 * this server: the page works offline.
 */
export async function registerDocs(app: App, ctx: AppContext): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: "3.0.3",
      info: {
        title: "Dakiya API",
        version: "2",
        description: DESCRIPTION,
        license: { name: "Apache-2.0", url: "https://www.apache.org/licenses/LICENSE-2.0" },
      },
      servers: [
        ctx.publicUrl
          ? { url: ctx.publicUrl, description: "This server (PUBLIC_URL)" }
          : { url: "/", description: "The server that serves this document" },
      ],
      tags: TAGS,
      components: {
        securitySchemes: {
          apiKey: {
            type: "http",
            scheme: "bearer",
            description: "An API key: `dk_live_…` or `dk_sandbox_…`, shown once when it is created.",
          },
        },
      },
    },
    transform: documentOperation,
    transformObject: (document) => tidyDocument("openapiObject" in document ? document.openapiObject : {}),
  });
  app.get(OPENAPI_PATH, { schema: { hide: true } }, async () => app.swagger());
  const referencePage = lazyReferencePage();
  app.addHook("onClose", () => referencePage.close());
  for (const url of [DOCS_PATH, `${DOCS_PATH}/*`]) {
    app.route({
      method: ["GET", "HEAD"],
      url,
      schema: { hide: true },
      handler: (request, reply) => referencePage.serve(request, reply),
    });
  }
}

/** The reference page's look and settings: nothing on it calls a hosted service. */
const REFERENCE_CONFIGURATION: FastifyApiReferenceOptions["configuration"] = {
  url: OPENAPI_PATH,
  pageTitle: "Dakiya API reference",
  favicon: LOGO_URL,
  theme: "default",
  customCss: BRAND_CSS,
  withDefaultFonts: false,
  telemetry: false,
  // Features that call Scalar's hosted services stay off.
  showDeveloperTools: "never",
  agent: { disabled: true },
  documentDownloadType: "json",
  defaultHttpClient: { targetKey: "shell", clientKey: "curl" },
  authentication: { preferredSecurityScheme: "apiKey" },
};

/** Headers of the reference page's answers that the browser needs. */
const PASSED_HEADERS = ["content-type", "location", "cache-control", "etag", "last-modified"];

/**
 * Scalar's page and its 4 MB script, loaded on the first visit to /docs rather than at start:
 * importing them costs a server about 35 MB of memory, for a page most servers never show. The
 * page is served by a Fastify instance of its own, which this server's /docs routes ask.
 */
function lazyReferencePage() {
  let docs: Promise<FastifyInstance> | undefined;
  const open = async (): Promise<FastifyInstance> => {
    const { default: apiReference } = await import("@scalar/fastify-api-reference");
    const server = Fastify();
    await server.register(apiReference, {
      routePrefix: DOCS_PATH,
      configuration: REFERENCE_CONFIGURATION,
    });
    await server.ready();
    return server;
  };
  return {
    async serve(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
      docs ??= open().catch((error: unknown) => {
        docs = undefined;
        throw error;
      });
      const answer = await (await docs).inject({
        method: request.method as "GET" | "HEAD",
        url: request.url,
      });
      reply.code(answer.statusCode);
      for (const name of PASSED_HEADERS) {
        const value = answer.headers[name];
        if (value !== undefined) reply.header(name, value);
      }
      return reply.send(answer.rawPayload);
    },
    async close(): Promise<void> {
      const server = await docs?.catch(() => undefined);
      await server?.close();
    },
  };
}
