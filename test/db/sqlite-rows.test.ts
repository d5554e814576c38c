import Database from "better-sqlite3";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readRows } from "../../src/db/sqlite/rows.js";

const value = fc.oneof(
  fc.constant(null),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string(),
  fc.uint8Array({ maxLength: 8 }).map((bytes) => Buffer.from(bytes)),
);
// Any column name SQLite takes as a quoted identifier, the object's own keys and `__proto__` among them.
const columnName = fc.oneof(
  fc.constantFrom(
    "id",
    "__proto__",
    "constructor",
    "toString",
    "hasOwnProperty",
    "0",
    "1e3",
    "a b",
    'say "hi"',
    "ключ",
  ),
  fc.string({ minLength: 1, maxLength: 12 }).filter((name) => !name.includes("\u0000")),
);
const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** A row's own properties and its prototype: a blob in a column named `__proto__` becomes the prototype. */
function shape(row: unknown) {
  const prototype = Object.getPrototypeOf(row);
  return {
    properties: Object.entries(row as object),
    prototype:
      prototype === Object.prototype ? "Object" : Buffer.isBuffer(prototype) ? [...prototype] : prototype,
  };
}

describe("rows read as arrays and made objects", () => {
  it("are the objects better-sqlite3 answers, for any names and values, duplicates included", () => {
    const db = new Database(":memory:");
    fc.assert(
      fc.property(
        fc.array(fc.tuple(columnName, value), { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 0, max: 3 }),
        (columns, rowCount) => {
          const select = columns.map(([name]) => `? as ${quote(name)}`).join(", ");
          const sql = `select ${select} from (select 1 union all select 2 union all select 3) limit ${rowCount}`;
          const parameters = columns.map(([, v]) => v);
          const expected = db.prepare(sql).all(parameters);
          const statement = db.prepare(sql);
          // Twice: the first read compiles the statement's row builder, the second reuses it.
          for (let read = 0; read < 2; read++) {
            expect(readRows<object>(statement, parameters).map(shape)).toEqual(expected.map(shape));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("are plain objects whose keys come in column order", () => {
    const db = new Database(":memory:");
    const statement = db.prepare("select 3 as c, 1 as a, 2 as b");
    const [row] = readRows<Record<string, number>>(statement, []);
    expect(Object.keys(row as object)).toEqual(["c", "a", "b"]);
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
  });
});
