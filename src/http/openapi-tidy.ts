/**
 * Last touches on the generated OpenAPI document, for readers and code generators: a union of
 * single values (how TypeBox writes `"sms" | "whatsapp"`) becomes one `enum`, a nullable one an
 * `enum` with `null`, an `enum` of strings says it is a string, `examples` lists left inside
 * unions become OpenAPI 3.0's `example`, and a query parameter with a default is optional.
 */

type Node = Record<string, unknown>;

export function tidyDocument<T extends object>(document: T): T {
  visit(document);
  return document;
}

function visit(value: unknown): void {
  if (Array.isArray(value)) {
    for (const item of value) visit(item);
    return;
  }
  if (!isNode(value)) return;
  for (const child of Object.values(value)) visit(child);
  mergeSingleValueUnion(value, "anyOf");
  mergeSingleValueUnion(value, "oneOf");
  mergeNullableEnum(value);
  // The route schemas require a parameter with a default (the server fills it in); to a client
  // it is optional.
  if (value.in === "query" && value.required === true && isNode(value.schema) && "default" in value.schema) {
    value.required = false;
  }
  // JSON Schema's `examples` (a list) is `example` (one value) in OpenAPI 3.0; @fastify/swagger
  // converts it on properties but not inside `anyOf`. A media type's `examples` is a map: kept.
  if (Array.isArray(value.examples) && (value.type !== undefined || value.enum !== undefined)) {
    value.example ??= value.examples[0];
    delete value.examples;
  }
  const values = value.enum;
  if (value.type === undefined && Array.isArray(values) && values.every((v) => typeof v === "string")) {
    value.type = "string";
  }
}

/** `anyOf: [{type: "string", enum: ["a"]}, {type: "string", enum: ["b"]}]` → `type: "string", enum: ["a", "b"]`. */
function mergeSingleValueUnion(node: Node, keyword: "anyOf" | "oneOf"): void {
  const members = node[keyword];
  if (!Array.isArray(members) || members.length === 0) return;
  const type = (members[0] as Node | undefined)?.type;
  const singleValues = members.every(
    (member) =>
      isNode(member) &&
      member.type === type &&
      Array.isArray(member.enum) &&
      member.enum.length === 1 &&
      Object.keys(member).every((key) => key === "type" || key === "enum"),
  );
  if (!singleValues || typeof type !== "string") return;
  delete node[keyword];
  node.type = type;
  node.enum = members.map((member) => (member as { enum: unknown[] }).enum[0]);
}

/**
 * `anyOf: [{type: "string", enum: [...]}, {nullable: true, enum: [null]}]` (a nullable union) →
 * `type: "string", nullable: true, enum: [..., null]`.
 */
function mergeNullableEnum(node: Node): void {
  const members = node.anyOf;
  if (!Array.isArray(members) || members.length !== 2) return;
  const nullIndex = members.findIndex(
    (member) =>
      isNode(member) && member.nullable === true && Array.isArray(member.enum) && member.enum[0] === null,
  );
  const other = members[1 - nullIndex];
  if (nullIndex < 0 || !isNode(other) || typeof other.type !== "string" || !Array.isArray(other.enum)) return;
  if (Object.keys(other).some((key) => key !== "type" && key !== "enum" && key in node)) return;
  delete node.anyOf;
  Object.assign(node, other, { nullable: true, enum: [...other.enum, null] });
}

function isNode(value: unknown): value is Node {
  return typeof value === "object" && value !== null;
}
