import type pg from "pg";

/*
 * PostgreSQL parses and plans an unnamed statement on every run. A send's flight (one-flight.ts)
 * and the reads issued together run the same few texts thousands of times a second, so each is
 * named once it runs again: a connection then parses it once, and PostgreSQL keeps a generic plan
 * after a few runs. Planning alone took longer than running the hottest of them (a send's guarded
 * counter upsert: 3 ×). They are all lookups and writes by key, whose plan does not depend on
 * how big the tables have grown. The other queries (Kysely's) stay unnamed: a generic plan made
 * while a table was small stays until the table is analyzed, and the webhook dispatcher's join of
 * its claimed deliveries went from 0.4 to 65 ms a run that way as the tables grew under load.
 *
 * Names are per text, the same on every connection; only reads and writes are named, and past
 * MAX_NAMED texts the rest run unnamed, so texts made per call cannot fill the server's memory.
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
