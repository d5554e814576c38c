import { type RawBuilder, sql } from "kysely";

/**
 * `column LIKE '%suffix' ESCAPE '\'`, the same on SQLite and PostgreSQL: LIKE's own wildcards
 * (`%`, `_`) and the escape character in `suffix` are escaped, so it only ever matches itself, at
 * the end of the column. `suffix` travels as a bound parameter.
 */
export function endsWith(column: string, suffix: string): RawBuilder<boolean> {
  const pattern = `%${suffix.replace(/[\\%_]/g, "\\$&")}`;
  return sql<boolean>`${sql.ref(column)} like ${pattern} escape '\\'`;
}
