import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import {
  type Dialect,
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from "kysely";
import { describe, expect, it } from "vitest";
import { rowLimit } from "../../src/db/row-limit.js";
import type { Database } from "../../src/db/schema.js";

/** A Kysely that only compiles, for one dialect. */
function compilerOf(dialect: Pick<Dialect, "createAdapter" | "createIntrospector" | "createQueryCompiler">) {
  return new Kysely<Database>({ dialect: { ...dialect, createDriver: () => new DummyDriver() } });
}

const compilers = {
  sqlite: compilerOf({
    createAdapter: () => new SqliteAdapter(),
    createIntrospector: (db) => new SqliteIntrospector(db),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  }),
  postgres: compilerOf({
    createAdapter: () => new PostgresAdapter(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  }),
};

describe("rowLimit", () => {
  it.each(Object.entries(compilers))("writes the limit into the statement's text on %s", (_, db) => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000_000 }), fc.string(), (count, recipient) => {
        const { sql, parameters } = db
          .selectFrom("otps")
          .select("id")
          .where("recipient", "=", recipient)
          .limit(rowLimit(count))
          .compile();
        expect(sql).toMatch(new RegExp(` limit ${count}$`));
        expect(parameters).toEqual([recipient]);
      }),
    );
  });

  it("refuses anything but a whole number of rows", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer({ max: -1 }),
          fc.double().filter((value) => !Number.isSafeInteger(value)),
          fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53),
        ),
        (count) => {
          expect(() => rowLimit(count)).toThrow(RangeError);
        },
      ),
    );
  });

  // A bound LIMIT makes SQLite prepare its statement anew on every run (its planner reads the
  // value): the limits of the server's statements are written with rowLimit.
  it("is how the server writes its statements' limits", () => {
    const root = fileURLToPath(new URL("../../src", import.meta.url));
    const boundLimits: Array<{ file: string; line: string }> = [];
    const visit = (dir: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) {
          if (entry.name !== "migrations") visit(path);
          continue;
        }
        if (!entry.name.endsWith(".ts")) continue;
        readFileSync(path, "utf8")
          .split("\n")
          .forEach((line) => {
            if (/\.limit\((?!rowLimit\()|\blimit \$\{(?!rowLimit\()/.test(line)) {
              boundLimits.push({ file: relative(root, path), line: line.trim() });
            }
          });
      }
    };
    visit(root);
    expect(boundLimits).toEqual([]);
  });
});
