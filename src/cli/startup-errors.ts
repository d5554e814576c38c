/**
 * What an operator sees when the server cannot start: one line that names the setting to change,
 * instead of a system error. Only errors of the start-up steps are explained (opening the
 * database, listening); anything later is reported as it is.
 */
import type { Config } from "../config.js";
import { type AppContext, type ContextOverrides, createContext } from "../context.js";
import { ConfigError } from "../errors.js";

interface SystemError extends Error {
  code?: string;
  syscall?: string;
  address?: string;
  port?: number;
  hostname?: string;
  path?: string;
}

/** An address the server listens on, and the variables that choose it. */
export interface Listener {
  host: string;
  port: number;
  hostVariable: string;
  portVariable: string;
}

/** A failed `listen` as a ConfigError naming the variable to change; other errors as they are. */
export function explainListenError(error: unknown, listeners: readonly Listener[]): unknown {
  const failure = error as SystemError;
  const listener =
    listeners.find((l) => failure.port !== undefined && l.port === failure.port) ??
    listeners.find((l) => failure.hostname !== undefined && l.host === failure.hostname) ??
    listeners[0];
  if (!listener) return error;
  const { hostVariable: HOST, portVariable: PORT } = listener;
  const where = `port ${failure.port ?? listener.port} on ${failure.address ?? listener.host}`;
  switch (failure.code) {
    case "EADDRINUSE":
      return new ConfigError(`${where} is in use; set ${PORT} (or ${HOST}) to another`);
    case "EACCES":
      return new ConfigError(
        `${where} needs privileges this user does not have (ports below 1024 do); set ${PORT} to 1024 or above`,
      );
    case "EADDRNOTAVAIL":
      return new ConfigError(
        `${failure.address ?? listener.host} is not an address of this machine; set ${HOST} to one of its addresses (127.0.0.1, or 0.0.0.0 for all)`,
      );
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return new ConfigError(
        `${HOST} ${listener.host} is not a known host name; set ${HOST} to an address of this machine (127.0.0.1, or 0.0.0.0 for all)`,
      );
    default:
      return error;
  }
}

/** A database that cannot be opened as a ConfigError saying what to fix; other errors as they are. */
export function explainDatabaseError(error: unknown, databaseUrl: string): unknown {
  if (error instanceof ConfigError) return error;
  const failure = error as SystemError;
  if (!(error instanceof Error)) return error;
  if (databaseUrl.startsWith("sqlite:"))
    return explainSqliteError(failure, databaseUrl.slice("sqlite:".length));
  const server = postgresAddress(databaseUrl);
  if (!server) {
    return new ConfigError(
      "DATABASE_URL is not a valid postgres:// address; check its spelling and escape special characters in the password",
    );
  }
  const cannotReach = `cannot reach PostgreSQL at ${server}`;
  const code = failure.code ?? (error instanceof AggregateError ? codeOf(error.errors[0]) : undefined);
  switch (code) {
    case "ECONNREFUSED":
      return new ConfigError(
        `${cannotReach} (connection refused); start PostgreSQL, or fix the host and port in DATABASE_URL`,
      );
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return new ConfigError(`${cannotReach} (unknown host); fix the host in DATABASE_URL`);
    case "ETIMEDOUT":
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return new ConfigError(
        `${cannotReach} (no route or no answer); check the host in DATABASE_URL and the network`,
      );
    case "28P01":
    case "28000":
      return new ConfigError(
        `PostgreSQL at ${server} refused the sign-in (${error.message}); fix the user or password in DATABASE_URL`,
      );
    case "3D000":
      return new ConfigError(
        `PostgreSQL at ${server}: ${error.message}; create it, or fix the database name in DATABASE_URL`,
      );
    case "57P03":
      return new ConfigError(`PostgreSQL at ${server} is starting up; try again in a moment`);
    default:
      return error;
  }
}

function explainSqliteError(failure: SystemError, path: string): unknown {
  const where = `the SQLite database ${path}`;
  switch (failure.code) {
    case "EACCES":
    case "EROFS":
    case "ENOTDIR":
    case "EEXIST":
    case "SQLITE_CANTOPEN":
    case "SQLITE_READONLY":
    case "SQLITE_PERM":
      return new ConfigError(
        `cannot open ${where} (${failure.message}); make its folder writable, or set DATABASE_URL to another path`,
      );
    case "SQLITE_NOTADB":
    case "SQLITE_CORRUPT":
      return new ConfigError(
        `${where} is not a usable database file (${failure.message}); set DATABASE_URL to another path`,
      );
    default:
      return failure;
  }
}

/** `host:port` of a postgres:// address, without its user or password; `undefined` if it does not parse. */
function postgresAddress(databaseUrl: string): string | undefined {
  try {
    const url = new URL(databaseUrl);
    return `${url.hostname || "localhost"}:${url.port || "5432"}`;
  } catch {
    return undefined;
  }
}

function codeOf(error: unknown): string | undefined {
  return (error as SystemError | undefined)?.code;
}

/** The addresses `serve` listens on: the API's, and `/metrics`'s own when METRICS_PORT is set. */
export function listenersOf(config: Config): Listener[] {
  const api = { host: config.host, port: config.port, hostVariable: "HOST", portVariable: "PORT" };
  const metrics = config.metricsListener && {
    ...config.metricsListener,
    hostVariable: "METRICS_HOST",
    portVariable: "METRICS_PORT",
  };
  return metrics ? [api, metrics] : [api];
}

/** `createContext`, with a database that cannot be opened explained in one line. */
export async function openContext(config: Config, overrides?: ContextOverrides): Promise<AppContext> {
  try {
    return await createContext(config, overrides);
  } catch (error) {
    throw explainDatabaseError(error, config.databaseUrl);
  }
}
