/** How a setting's value reads in a one-line configuration error. */

export function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/** A value in an error message: short, on one line. */
export function shown(value: unknown): string {
  if (value === undefined) return "nothing";
  const json = JSON.stringify(value) ?? String(value);
  return oneLine(json.length > 60 ? `${json.slice(0, 57)}...` : json);
}

function oneLine(text: string): string {
  return text.replace(/[\r\n\u2028\u2029]+/g, " ");
}
