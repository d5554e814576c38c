import { readFileSync } from "node:fs";
import { parseTmChain } from "../../dlt/tm-chain.js";
import { integerFromEnv } from "../../env.js";
import { ConfigError } from "../../errors.js";
import { TRAFFIC_CATEGORIES, type TrafficCategory } from "../../messages/traffic.js";
import { kindOf, shown } from "./config-values.js";
import { DEFAULT_REJECTIONS, type RejectionCode, RejectionTable } from "./dlt-rejections.js";
import { errorMapOf, sameErrorMap } from "./error-map-config.js";
import { ANY_TRAFFIC, type RouteTraffic } from "./route-selection.js";

export type BindMode = "transceiver" | "transmitter+receiver";

/** One SMSC connection: where it binds and what every `submit_sm` on it carries. */
export interface SmppConfig {
  host: string;
  port: number;
  tls: boolean;
  systemId: string;
  password: string;
  systemType: string;
  bindMode: BindMode;
  /** Messages (parts) per second at most. */
  tps: number;
  /** `submit_sm` awaiting their response at most. */
  window: number;
  /** DLT TLV tags; sources disagree on them, so they are settings. */
  tlv: { entityId: number; templateId: number; tm: number };
  /** A literal sent in `tlv.tm` (a telemarketer id, for an SMSC that hashes the chain itself). */
  tmId: string | undefined;
  /**
   * The telemarketer ids after the PE: each message carries the PE–TM chain hash of its
   * template's entity and this chain (an account's own chain overrides it). Never beside `tmId`.
   */
  tmChain: readonly string[] | undefined;
  /** Alphanumeric headers are TON 5 / NPI 0; Indian mobiles TON 1 / NPI 1, without the plus. */
  source: { ton: number; npi: number };
  destination: { ton: number; npi: number };
}

/** A route: one SMSC connection, how traffic picks it, and when traffic leaves it for the next. */
export interface SmppRoute extends SmppConfig {
  name: string;
  /** Lower numbers are tried first. */
  priority: number;
  /** Share of traffic among bound routes of the same priority. */
  weight: number;
  /**
   * The SMSC account the route binds to. Routes naming the same one share its message ids, so a
   * receipt is matched whichever of their binds it comes back on; ids of different SMSCs never mix.
   */
  smsc: string;
  /** A `submit_sm` unanswered this long counts as lost. */
  submitTimeoutMs: number;
  /** How long a message waits for the route's window (or a throttle pause) before it tries the next route. */
  windowWaitMs: number;
  /** The circuit opens after `failures` temporary errors or timeouts in a row, for `cooldownMs`. */
  breaker: { failures: number; cooldownMs: number };
  /** The messages it may carry: by category, account and sender (every message when none is listed). */
  traffic: RouteTraffic;
  /** Its `error_map`, keys written one way (`0x0000045A`, `623`): what it adds to the default table. */
  errorMap: ReadonlyMap<string, RejectionCode>;
  /** The default table of operator rejections with `errorMap` over it (docs/dlt-compliance.md). */
  rejections: RejectionTable;
}

/** The route `SMPP_URL` makes on its own. */
export const DEFAULT_ROUTE_NAME = "default";
export const MAX_ROUTES = 32;
const ROUTE_NAME = /^[a-z0-9][a-z0-9_-]{0,31}$/;
const ACCOUNT_ID = /^acct_[0-9A-Za-z]{1,64}$/;
/** A DLT header: 6 letters (transactional, service-implicit) or 6 digits (promotional, service-explicit). */
const SENDER_HEADER = /^(?:[A-Za-z]{6}|[0-9]{6})$/;

/** The DLT TLVs' tags by default, and the range of the SMPP 3.4 vendor-specific tags they may take instead. */
export const DEFAULT_TLV_TAGS = { entityId: 0x1400, templateId: 0x1401, tm: 0x1402 } as const;
export const TLV_TAG_RANGE = { min: 0x1400, max: 0x3fff } as const;

/**
 * Each route setting: its field in the SMPP_ROUTES file, its variable for the SMPP_URL shorthand,
 * its default and its bounds.
 */
const INTEGER_FIELDS = {
  tps: { env: "SMPP_TPS", fallback: 50, min: 1, max: 100_000 },
  window: { env: "SMPP_WINDOW", fallback: 10, min: 1, max: 1_000 },
  tlv_entity_id: { env: "SMPP_TLV_ENTITY_ID", fallback: DEFAULT_TLV_TAGS.entityId, ...TLV_TAG_RANGE },
  tlv_template_id: { env: "SMPP_TLV_TEMPLATE_ID", fallback: DEFAULT_TLV_TAGS.templateId, ...TLV_TAG_RANGE },
  tlv_tm: { env: "SMPP_TLV_TM", fallback: DEFAULT_TLV_TAGS.tm, ...TLV_TAG_RANGE },
  source_ton: { env: "SMPP_SOURCE_TON", fallback: 5, min: 0, max: 6 },
  source_npi: { env: "SMPP_SOURCE_NPI", fallback: 0, min: 0, max: 18 },
  dest_ton: { env: "SMPP_DEST_TON", fallback: 1, min: 0, max: 6 },
  dest_npi: { env: "SMPP_DEST_NPI", fallback: 1, min: 0, max: 18 },
  submit_timeout_seconds: { env: "SMPP_SUBMIT_TIMEOUT_SECONDS", fallback: 10, min: 1, max: 300 },
  window_wait_ms: { env: "SMPP_WINDOW_WAIT_MS", fallback: 500, min: 0, max: 60_000 },
  breaker_failures: { env: "SMPP_BREAKER_FAILURES", fallback: 5, min: 1, max: 1_000 },
  breaker_cooldown_seconds: { env: "SMPP_BREAKER_COOLDOWN_SECONDS", fallback: 30, min: 1, max: 3_600 },
} as const;
type IntegerField = keyof typeof INTEGER_FIELDS;

const TEXT_FIELDS = {
  url: { env: "SMPP_URL" },
  system_type: { env: "SMPP_SYSTEM_TYPE" },
  bind: { env: "SMPP_BIND" },
  tm_id: { env: "SMPP_TM_ID" },
  tm_chain: { env: "SMPP_TM_CHAIN" },
} as const;
type TextField = keyof typeof TEXT_FIELDS;

/** The fields a route of the file may have; any other is refused. */
const FILE_ONLY_FIELDS = [
  "name",
  "priority",
  "weight",
  "smsc",
  "categories",
  "accounts",
  "senders",
  "error_map",
] as const;
const ROUTE_FIELDS: ReadonlySet<string> = new Set([
  ...FILE_ONLY_FIELDS,
  ...Object.keys(INTEGER_FIELDS),
  ...Object.keys(TEXT_FIELDS),
]);
/** The variables SMPP_ROUTES replaces: setting one beside it is a mistake worth stopping for. */
const SHORTHAND_VARIABLES = [...Object.values(TEXT_FIELDS), ...Object.values(INTEGER_FIELDS)].map(
  (f) => f.env,
);

/** Where a route's settings come from (the environment, or one entry of the file), and how its errors read. */
interface RouteSource {
  integer(field: IntegerField): number;
  text(field: TextField): string | undefined;
  /** A list setting: a JSON array in the file, comma-separated in a variable. */
  list(field: TextField): string[] | undefined;
  /** `SMPP_TPS`, or `route "backup": tps`: the name of a setting in an error. */
  label(field: TextField | IntegerField): string;
}

/**
 * The SMS routes of the configuration: those of the SMPP_ROUTES file, or the one route
 * `default` that SMPP_URL and the other SMPP_* variables make; `undefined` when neither is set
 * (live SMS not configured). Any mistake stops the start with a one-line message.
 */
export function parseSmppRoutes(env: NodeJS.ProcessEnv): SmppRoute[] | undefined {
  const file = env.SMPP_ROUTES;
  if (file) {
    const beside = SHORTHAND_VARIABLES.filter((name) => env[name] !== undefined && env[name] !== "");
    if (beside.length > 0) {
      throw new ConfigError(
        `SMPP_ROUTES replaces ${beside.join(", ")}: put each route's settings in the file and unset the variables`,
      );
    }
    return parseRoutesFile(readRoutesFile(file));
  }
  if (!env.SMPP_URL) return undefined;
  const source: RouteSource = {
    integer: (field) => {
      const { env: name, fallback, min, max } = INTEGER_FIELDS[field];
      return integerFromEnv(env, name, fallback, min, max);
    },
    text: (field) => env[TEXT_FIELDS[field].env],
    list: (field) => {
      const value = env[TEXT_FIELDS[field].env];
      return value ? value.split(",") : undefined;
    },
    label: (field) => ({ ...TEXT_FIELDS, ...INTEGER_FIELDS })[field].env,
  };
  const route = routeFrom(source, { name: DEFAULT_ROUTE_NAME, priority: 1, weight: 1, smsc: undefined });
  return [route];
}

function readRoutesFile(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "unreadable";
    throw new ConfigError(`SMPP_ROUTES: cannot read ${path} (${code})`);
  }
}

/** The routes of an SMPP_ROUTES file's text: a JSON array of route objects (docs/routes.md). */
export function parseRoutesFile(text: string): SmppRoute[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    // Only where: the parser's own message quotes the text around the error, passwords included.
    const position = /position (\d+)/.exec((error as Error).message)?.[1];
    const where = position === undefined ? "" : ` at character ${Number(position) + 1}`;
    throw new ConfigError(`SMPP_ROUTES: the file is not valid JSON${where}`);
  }
  if (!Array.isArray(parsed)) {
    throw new ConfigError(`SMPP_ROUTES: the file must hold a JSON array of routes, got ${kindOf(parsed)}`);
  }
  if (parsed.length === 0 || parsed.length > MAX_ROUTES) {
    throw new ConfigError(`SMPP_ROUTES: the file must list 1 to ${MAX_ROUTES} routes, got ${parsed.length}`);
  }
  const routes = parsed.map((entry, index) => routeOfFile(entry, index));
  checkRoutesTogether(routes);
  return routes;
}

function routeOfFile(entry: unknown, index: number): SmppRoute {
  const position = `SMPP_ROUTES: route ${index + 1}`;
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
    throw new ConfigError(`${position} must be an object, got ${kindOf(entry)}`);
  }
  const fields = entry as Record<string, unknown>;
  const name = fields.name;
  if (typeof name !== "string" || !ROUTE_NAME.test(name)) {
    throw new ConfigError(
      `${position}: name must be 1 to 32 lower-case letters, digits, - or _ (starting with a letter or digit), got ${shown(name)}`,
    );
  }
  const where = `SMPP_ROUTES: route "${name}"`;
  for (const key of Object.keys(fields)) {
    if (!ROUTE_FIELDS.has(key)) throw new ConfigError(`${where}: unknown field ${shown(key)}`);
  }
  const integer = (key: string, value: unknown, fallback: number, min: number, max: number): number => {
    if (value === undefined) return fallback;
    const n =
      typeof value === "string" && /^0x[0-9a-f]{1,8}$/i.test(value) ? Number.parseInt(value, 16) : value;
    if (typeof n !== "number" || !Number.isInteger(n) || n < min || n > max) {
      throw new ConfigError(`${where}: ${key} must be an integer from ${min} to ${max}, got ${shown(value)}`);
    }
    return n;
  };
  const source: RouteSource = {
    integer: (field) => {
      const { fallback, min, max } = INTEGER_FIELDS[field];
      return integer(field, fields[field], fallback, min, max);
    },
    text: (field) => {
      const value = fields[field];
      if (value === undefined || typeof value === "string") return value;
      throw new ConfigError(`${where}: ${field} must be a string, got ${kindOf(value)}`);
    },
    list: (field) => {
      const value = fields[field];
      if (value === undefined) return undefined;
      if (Array.isArray(value) && value.every((entry) => typeof entry === "string")) return value;
      throw new ConfigError(`${where}: ${field} must be a list of strings, got ${shown(value)}`);
    },
    label: (field) => `${where}: ${field}`,
  };
  const smsc = fields.smsc;
  if (smsc !== undefined && (typeof smsc !== "string" || !ROUTE_NAME.test(smsc))) {
    throw new ConfigError(`${where}: smsc must be a name written like a route's, got ${shown(smsc)}`);
  }
  const route = routeFrom(source, {
    name,
    priority: integer("priority", fields.priority, 1, 0, 1_000),
    weight: integer("weight", fields.weight, 1, 1, 1_000),
    smsc,
  });
  const errorMap = errorMapOf(fields.error_map, where);
  return {
    ...route,
    traffic: trafficOf(fields, where),
    errorMap,
    rejections: errorMap.size === 0 ? DEFAULT_REJECTIONS : new RejectionTable(errorMap),
  };
}

/** A route's `categories`, `accounts` and `senders`: each left out, or a non-empty list of valid entries. */
function trafficOf(fields: Record<string, unknown>, where: string): RouteTraffic {
  const list = <T extends string>(
    field: "categories" | "accounts" | "senders",
    what: string,
    valid: (entry: string) => boolean,
    normalise: (entry: string) => T,
  ): ReadonlySet<T> | undefined => {
    const value = fields[field];
    if (value === undefined) return undefined;
    if (!Array.isArray(value)) {
      throw new ConfigError(`${where}: ${field} must be a list of ${what}, got ${kindOf(value)}`);
    }
    if (value.length === 0) {
      throw new ConfigError(`${where}: ${field} must not be empty: leave it out to carry every one`);
    }
    for (const entry of value) {
      if (typeof entry !== "string" || !valid(entry)) {
        throw new ConfigError(`${where}: ${field} must be a list of ${what}, got ${shown(entry)} in it`);
      }
    }
    return new Set((value as string[]).map(normalise));
  };
  const categories: ReadonlySet<string> = new Set(TRAFFIC_CATEGORIES);
  return {
    categories: list(
      "categories",
      TRAFFIC_CATEGORIES.join(", "),
      (entry) => categories.has(entry),
      (entry) => entry as TrafficCategory,
    ),
    accounts: list(
      "accounts",
      "account ids (acct_…)",
      (entry) => ACCOUNT_ID.test(entry),
      (entry) => entry,
    ),
    senders: list(
      "senders",
      "6-letter or 6-digit sender headers",
      (entry) => SENDER_HEADER.test(entry),
      (entry) => entry.toUpperCase(),
    ),
  };
}

function routeFrom(
  source: RouteSource,
  identity: { name: string; priority: number; weight: number; smsc: string | undefined },
): SmppRoute {
  const url = parseSmppUrl(source.text("url"), source.label("url"));
  const bindMode = source.text("bind") || "transceiver";
  if (bindMode !== "transceiver" && bindMode !== "transmitter+receiver") {
    throw new ConfigError(
      `${source.label("bind")} must be transceiver or transmitter+receiver, got "${bindMode}"`,
    );
  }
  const systemType = source.text("system_type") ?? "";
  return {
    name: identity.name,
    priority: identity.priority,
    weight: identity.weight,
    smsc: identity.smsc ?? identity.name,
    ...url,
    systemType,
    bindMode,
    tps: source.integer("tps"),
    window: source.integer("window"),
    tlv: {
      entityId: source.integer("tlv_entity_id"),
      templateId: source.integer("tlv_template_id"),
      tm: source.integer("tlv_tm"),
    },
    ...telemarketerOf(source),
    source: { ton: source.integer("source_ton"), npi: source.integer("source_npi") },
    destination: { ton: source.integer("dest_ton"), npi: source.integer("dest_npi") },
    submitTimeoutMs: source.integer("submit_timeout_seconds") * 1000,
    windowWaitMs: source.integer("window_wait_ms"),
    breaker: {
      failures: source.integer("breaker_failures"),
      cooldownMs: source.integer("breaker_cooldown_seconds") * 1000,
    },
    traffic: ANY_TRAFFIC,
    errorMap: new Map(),
    rejections: DEFAULT_REJECTIONS,
  };
}

/** `tm_id` (a literal) or `tm_chain` (hashed per message), never both: they fill the same TLV. */
function telemarketerOf(source: RouteSource): Pick<SmppConfig, "tmId" | "tmChain"> {
  const tmId = source.text("tm_id") || undefined;
  const ids = source.list("tm_chain");
  if (ids === undefined) return { tmId, tmChain: undefined };
  if (tmId !== undefined) {
    throw new ConfigError(
      `${source.label("tm_id")} and ${source.label("tm_chain")} both fill the TM TLV: set tm_chain (Dakiya hashes the chain per message) or tm_id (a literal for an SMSC that hashes it), not both`,
    );
  }
  const parsed = parseTmChain(ids);
  if ("problem" in parsed) throw new ConfigError(`${source.label("tm_chain")}: ${parsed.problem}`);
  return { tmId: undefined, tmChain: parsed.chain };
}

/** `smpp://system_id:password@host:port`; messages never repeat the address, which holds a password. */
function parseSmppUrl(
  raw: string | undefined,
  label: string,
): Pick<SmppConfig, "host" | "port" | "tls" | "systemId" | "password"> {
  if (!raw) throw new ConfigError(`${label} is required: smpp://system_id:password@host:2775`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${label} must look like smpp://system_id:password@host:2775 (smpps:// for TLS)`);
  }
  if (url.protocol !== "smpp:" && url.protocol !== "smpps:") {
    throw new ConfigError(`${label} must start with smpp:// or smpps://`);
  }
  if (!url.username || !url.hostname) throw new ConfigError(`${label} needs a system_id and a host`);
  if (url.pathname.replace(/^\/$/, "") || url.search || url.hash) {
    throw new ConfigError(`${label} must have no path, query or fragment`);
  }
  const tls = url.protocol === "smpps:";
  let systemId: string;
  let password: string;
  try {
    systemId = decodeURIComponent(url.username);
    password = decodeURIComponent(url.password);
  } catch {
    throw new ConfigError(`${label} has a broken percent-encoding in its system_id or password`);
  }
  return {
    host: url.hostname,
    port: url.port ? Number(url.port) : tls ? 3550 : 2775,
    tls,
    systemId,
    password,
  };
}

/** What no single route shows: duplicate names, and one SMSC account split over two id spaces. */
function checkRoutesTogether(routes: SmppRoute[]): void {
  const byName = new Map<string, SmppRoute>();
  const byAccount = new Map<string, SmppRoute>();
  for (const route of routes) {
    if (byName.has(route.name)) throw new ConfigError(`SMPP_ROUTES: two routes are named "${route.name}"`);
    byName.set(route.name, route);
    const account = `${route.systemId}@${route.host}:${route.port}`;
    const other = byAccount.get(account);
    if (other && other.smsc !== route.smsc) {
      throw new ConfigError(
        `SMPP_ROUTES: routes "${other.name}" and "${route.name}" bind the same SMSC account (${route.systemId}@${route.host}:${route.port}): give them the same "smsc" so receipts match on either`,
      );
    }
    byAccount.set(account, route);
  }
  // A receipt comes back on any bind of its SMSC account: all its routes read it with one table.
  const bySmsc = new Map<string, SmppRoute>();
  for (const route of routes) {
    const other = bySmsc.get(route.smsc);
    if (other && !sameErrorMap(other.errorMap, route.errorMap)) {
      throw new ConfigError(
        `SMPP_ROUTES: routes "${other.name}" and "${route.name}" share the SMSC account "${route.smsc}" but not their error_map: give them the same one, since receipts come back on either`,
      );
    }
    bySmsc.set(route.smsc, route);
  }
}
