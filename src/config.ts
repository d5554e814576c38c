import { ConfigError } from "./errors.js";

export interface Config {
  host: string;
  port: number;
  databaseUrl: string;
  /** Server secret for HMACs; when unset it is generated into the data folder on first start. */
  secret: string | undefined;
  logLevel: string;
}

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const logLevel = env.LOG_LEVEL ?? "info";
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}, got "${logLevel}"`);
  }
  const secret = env.DAKIYA_SECRET || undefined;
  if (secret !== undefined && secret.length < 32) {
    throw new ConfigError("DAKIYA_SECRET must be at least 32 characters");
  }
  return {
    host: env.HOST || "127.0.0.1",
    port: parsePort(env.PORT),
    databaseUrl: env.DATABASE_URL || "sqlite:./data/dakiya.db",
    secret,
    logLevel,
  };
}

function parsePort(value: string | undefined): number {
  if (value === undefined || value === "") return 3000;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`PORT must be an integer from 0 to 65535, got "${value}"`);
  }
  return port;
}
