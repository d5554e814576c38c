import type { PostgresPool } from "kysely";
import type pg from "pg";

/*
 * PostgreSQL parses and plans an unnamed statement on every run. The server's statements are a
 * few hundred texts run thousands of times a second, so each is named once it runs again: a
 * connection then parses it once, and PostgreSQL keeps a generic plan after a few runs. Planning
 * alone took longer than running the hottest of them (a send's guarded counter upsert: 3 ×).
 * Names are per text, the same on every connection; only reads and writes are named (not
 * `begin`, DDL or `set`), and past MAX_NAMED texts the rest run unnamed, so a text made per call
 * (a list of ids of another length) cannot fill the server's memory.
 */

const MAX_NAMED = 500;
/** Texts seen once are remembered up to this many, then forgotten together. */
const MAX_SEEN_ONCE = 10_000;
const NAMEABLE = /^\s*(select|insert|update|delete|with)\b/i;

const names = new Map<string, string>();
const seenOnce = new Set<string>();

/** A query as pg runs it: named once its text has run before. */
export function statementConfig(text: string, values: readonly unknown[]): pg.QueryConfig {
  return { name: nameOf(text), text, values: [...values] };
}

function nameOf(text: string): string | undefined {
  const name = names.get(text);
  if (name !== undefined || names.size >= MAX_NAMED || !NAMEABLE.test(text)) return name;
  if (!seenOnce.has(text)) {
    if (seenOnce.size >= MAX_SEEN_ONCE) seenOnce.clear();
    seenOnce.add(text);
    return undefined;
  }
  seenOnce.delete(text);
  const named = `dakiya_${names.size + 1}`;
  names.set(text, named);
  return named;
}

/** `pool` for Kysely, its queries run as `statementConfig` makes them. */
export function namedStatementsPool(pool: pg.Pool): PostgresPool {
  return {
    connect: async () => {
      const client = await pool.connect();
      return {
        query: ((textOrCursor: string | pg.Submittable, parameters?: readonly unknown[]) =>
          typeof textOrCursor === "string"
            ? client.query(statementConfig(textOrCursor, parameters ?? []))
            : client.query(textOrCursor)) as never,
        release: () => client.release(),
      };
    },
    end: () => pool.end(),
  };
}
