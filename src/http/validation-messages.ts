/**
 * Ajv says "must be equal to constant" for a value outside a union of literals, which names
 * neither the field's allowed values nor what was wrong. These read a failed value's issues and
 * say what it must be instead: "must be one of sms, whatsapp, voice".
 */

export interface AjvIssue {
  keyword: string;
  instancePath: string;
  schemaPath: string;
  params: Record<string, unknown>;
  message?: string;
}

/**
 * What the value of `first` (the first issue) must be, when its schema lists the allowed values
 * (`enum`, `const`, or a union of them, possibly with `null`) or is a union of plain types; else
 * `undefined`, and Ajv's own message stands.
 */
export function describeAllowed(issues: readonly AjvIssue[], first: AjvIssue): string | undefined {
  if (first.keyword === "enum" && Array.isArray(first.params.allowedValues)) {
    return oneOf(first.params.allowedValues);
  }
  // The outermost union around the value: a union of unions lists all of their values.
  const union = issues
    .filter(
      (issue) =>
        issue.keyword === "anyOf" &&
        issue.instancePath === first.instancePath &&
        first.schemaPath.startsWith(`${issue.schemaPath}/`),
    )
    .sort((a, b) => a.schemaPath.length - b.schemaPath.length)[0];
  if (!union) return first.keyword === "const" ? `must be ${show(first.params.allowedValue)}` : undefined;

  const branches = new Map<string, AjvIssue[]>();
  for (const issue of issues) {
    if (!issue.schemaPath.startsWith(`${union.schemaPath}/`)) continue;
    const branch = issue.schemaPath.slice(union.schemaPath.length + 1).split("/")[0] ?? "";
    branches.set(branch, [...(branches.get(branch) ?? []), issue]);
  }
  const allowed: unknown[] = [];
  const types: string[] = [];
  for (const branchIssues of branches.values()) {
    // A branch refused inside the value (an object's field): that field's own issue says more.
    if (branchIssues.some((issue) => issue.instancePath !== union.instancePath)) return undefined;
    const literals = branchIssues.flatMap((issue) =>
      issue.keyword === "const"
        ? [issue.params.allowedValue]
        : issue.keyword === "enum" && Array.isArray(issue.params.allowedValues)
          ? issue.params.allowedValues
          : [],
    );
    const kinds = new Set(branchIssues.map((issue) => issue.keyword));
    if (
      literals.length > 0 &&
      [...kinds].every((kind) => ["const", "enum", "type", "anyOf"].includes(kind))
    ) {
      allowed.push(...literals);
    } else if (kinds.size === 1 && kinds.has("type") && branchIssues.length === 1) {
      types.push(String(branchIssues[0]?.params.type));
    } else {
      return undefined; // a branch the value's type fits, refused for another reason: Ajv's message says which
    }
  }
  if (allowed.length > 0) {
    const nullable = types.includes("null");
    if (types.some((type) => type !== "null")) return undefined;
    return `${oneOf(allowed)}${nullable ? ", or null" : ""}`;
  }
  return types.length > 0 ? `must be ${types.map(article).join(" or ")}` : undefined;
}

function oneOf(values: readonly unknown[]): string {
  return values.length === 1 ? `must be ${show(values[0])}` : `must be one of ${values.map(show).join(", ")}`;
}

function show(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

function article(type: string): string {
  if (type === "null") return "null";
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}
