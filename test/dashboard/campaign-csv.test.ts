/**
 * The console's campaign file reader (web/src/campaign-csv.ts) on Papa Parse in Node: a byte order
 * mark, Hindi text, quoted commas and line breaks, blank rows, column matching, the refusals of a
 * file that cannot be used, and 100,000 rows read quickly.
 */
import { describe, expect, it } from "vitest";
import {
  CsvProblem,
  MAX_CSV_ROWS,
  mapColumns,
  normaliseNumber,
  readRecipientsCsv,
} from "../../web/src/campaign-csv.js";

describe("reading a campaign file", () => {
  it("reads UTF-8 with a byte order mark, Hindi, quoted commas and line breaks, and numbers rows as in the file", async () => {
    const csv = [
      "\uFEFF To ,Name,OTP,Reference,city",
      '9876543210,"नमस्ते, राम",4821,cust-1,Pune',
      "",
      '+919876543211,"two\nlines",7710,,Delhi',
      "91 98765 43212,Asha,1234,cust-3,",
    ].join("\r\n");
    const read = await readRecipientsCsv(csv, ["name", "otp"]);
    expect(read.recipients).toEqual([
      { to: "+919876543210", variables: { name: "नमस्ते, राम", otp: "4821" }, reference: "cust-1" },
      { to: "+919876543211", variables: { name: "two\nlines", otp: "7710" } },
      { to: "+919876543212", variables: { name: "Asha", otp: "1234" }, reference: "cust-3" },
    ]);
    expect(read.rows).toEqual([2, 4, 5]);
    expect(read.rowsRead).toBe(3);
    expect(read.normalised).toBe(2);
    expect(read.columns.ignored).toEqual(["city"]);
    expect(read.errors).toEqual([]);
  });

  it("leaves an empty cell out, for the server to name the missing variable", async () => {
    const read = await readRecipientsCsv("to,name\n+919876543210,\n", ["name"]);
    expect(read.recipients).toEqual([{ to: "+919876543210", variables: {} }]);
  });

  it("refuses a value longer than the API takes, on its row, and keeps the rest", async () => {
    const long = "9".repeat(40);
    const read = await readRecipientsCsv(
      `to,reference\n${long},x\n+919876543210,${"r".repeat(65)}\n+919876543211,ok\n`,
      [],
    );
    expect(read.errors.map(({ row }) => row)).toEqual([2, 3]);
    expect(read.errors[1]?.message).toMatch(/reference is longer than 64/);
    expect(read.recipients).toEqual([{ to: "+919876543211", variables: {}, reference: "ok" }]);
    expect(read.rows).toEqual([4]);
  });

  it("refuses a file without a `to` or a placeholder's column, an empty file and a broken quote", async () => {
    await expect(readRecipientsCsv("mobile,name\n9876543210,Asha\n", ["name"])).rejects.toThrow(
      /no "to" column: its first row must name the columns to, name/,
    );
    await expect(readRecipientsCsv("to\n9876543210\n", ["name", "otp"])).rejects.toThrow(
      /no "name", "otp" columns/,
    );
    await expect(readRecipientsCsv("", [])).rejects.toThrow(CsvProblem);
    await expect(readRecipientsCsv("to\n\n", [])).rejects.toThrow(/no recipients/);
    await expect(readRecipientsCsv('to,name\n9876543210,"Asha\n', ["name"])).rejects.toThrow(
      /^Row 2: .*quote/i,
    );
  });

  it(`reads ${MAX_CSV_ROWS.toLocaleString("en")} rows in well under a few seconds, and refuses one more`, async () => {
    const rows = ["to,name,amount"];
    for (let i = 0; i < MAX_CSV_ROWS; i++) {
      rows.push(`+9198${String(i).padStart(8, "0")},"नमस्ते ग्राहक ${i}, धन्यवाद",${i}.00`);
    }
    const progress: number[] = [];
    const started = performance.now();
    const read = await readRecipientsCsv(rows.join("\n"), ["name", "amount"], (n) => progress.push(n));
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(read.recipients).toHaveLength(MAX_CSV_ROWS);
    expect(read.rows.at(-1)).toBe(MAX_CSV_ROWS + 1);
    expect(read.recipients.at(-1)).toEqual({
      to: "+919800099999",
      variables: { name: "नमस्ते ग्राहक 99999, धन्यवाद", amount: "99999.00" },
    });
    // Read in chunks, each reported, so a page can show the count grow.
    expect(progress.length).toBeGreaterThan(1);
    expect(progress.at(-1)).toBe(MAX_CSV_ROWS);

    rows.push("+919999999999,one more,1");
    await expect(readRecipientsCsv(rows.join("\n"), ["name", "amount"])).rejects.toThrow(
      /more than 1,00,000 rows/,
    );
  });
});

describe("columns and numbers", () => {
  it("matches headers trimmed and in any case, and lists the others as ignored", () => {
    expect(mapColumns(["Name", " TO", "notes", "reference"], ["name"])).toEqual({
      to: 1,
      reference: 3,
      variables: [{ placeholder: "name", column: 0 }],
      ignored: ["notes"],
    });
  });

  it("writes Indian mobiles given without a country code as E.164, and leaves the rest", () => {
    expect(normaliseNumber(" 98765-43210 ")).toBe("+919876543210");
    expect(normaliseNumber("919876543210")).toBe("+919876543210");
    // As the Messages page's CSV writes a number, guarded against spreadsheet formulas.
    expect(normaliseNumber("'+919876543210")).toBe("+919876543210");
    expect(normaliseNumber("+91 98765 43210")).toBe("+919876543210");
    expect(normaliseNumber("12345")).toBe("12345");
    expect(normaliseNumber("+14155550100")).toBe("+14155550100");
  });
});
