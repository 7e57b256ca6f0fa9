/**
 * The Python client's types (TypedDicts, Literals, unions) from the OpenAPI document: one TypedDict per
 * JSON request body (`<OperationId>Request`) and per JSON success response (`<OperationId>Response`, with
 * the status appended when an operation has several different ones); nested objects are named after
 * their parent and property (`SearchItemsResponseItem`), the members of a union `<Name>Variant<n>`.
 * The named component schemas (`Error`) follow. Structurally identical schemas share the first name (the team memory routes reuse the personal ones).
 * Python 3.9: no NotRequired, so a TypedDict with optional keys is a required base plus a `total=False`
 * subclass. A schema this cannot express (a property that is not an identifier) is an error, not a guess.
 */

type Schema = Record<string, unknown>;

const PY_KEYWORDS = new Set(
  "False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield".split(
    " ",
  ),
);

const pascal = (text: string) =>
  text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join("");

const singular = (word: string) => (word.length > 3 && /[^s]s$/.test(word) ? word.slice(0, -1) : word);

const pyLiteral = (value: unknown): string => {
  if (value === null) return "None";
  if (typeof value === "boolean") return value ? "True" : "False";
  if (typeof value === "number") return String(value);
  if (typeof value === "string") return JSON.stringify(value);
  throw new Error(`python-types: cannot write ${JSON.stringify(value)} as a Literal`);
};

/** Canonical JSON (sorted keys, descriptions dropped) so equal shapes compare equal. */
function shapeKey(schema: unknown): string {
  if (Array.isArray(schema)) return `[${schema.map(shapeKey).join(",")}]`;
  if (schema && typeof schema === "object") {
    const entries = Object.entries(schema as Schema)
      .filter(([k]) => k !== "description")
      .sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${shapeKey(v)}`).join(",")}}`;
  }
  return JSON.stringify(schema);
}

class Emitter {
  readonly blocks: string[] = [];
  private readonly named = new Map<string, string>();
  private readonly used = new Set<string>();

  constructor(private readonly document: Schema) {}

  /** The Python type of `schema`, emitting the classes and aliases it needs under `name`. */
  type(schema: Schema, name: string): string {
    if (typeof schema.$ref === "string") return this.ref(schema.$ref);
    if ("const" in schema) return `Literal[${pyLiteral(schema.const)}]`;
    if (Array.isArray(schema.enum)) return `Literal[${schema.enum.map(pyLiteral).join(", ")}]`;
    const variants = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
    if (variants) return this.union(variants, name);
    if (Array.isArray(schema.type)) {
      return this.union(
        schema.type.map((t) => ({ ...schema, type: t })),
        name,
      );
    }
    switch (schema.type) {
      case "string":
        return "str";
      case "integer":
        return "int";
      case "number":
        return "float";
      case "boolean":
        return "bool";
      case "null":
        return "None";
      case "array": {
        const items = schema.items as Schema | undefined;
        return `List[${items ? this.type(items, name) : "Any"}]`;
      }
      case "object":
        return this.object(schema, name);
      default:
        return schema.properties ? this.object(schema, name) : "Any";
    }
  }

  /** A top-level body: its own name, or an alias of the equal body named before it. */
  root(schema: Schema, name: string): void {
    if (this.used.has(name)) return;
    const typeName = this.type(schema, name);
    if (typeName !== name) {
      this.used.add(name);
      this.blocks.push(`${name} = ${typeName}\n`);
    }
  }

  private union(variants: Schema[], name: string): string {
    const objects = variants.filter((v) => v.type === "object" && v.properties).length;
    let n = 0;
    const members = variants.map((v) =>
      v.type === "object" && v.properties && objects > 1
        ? this.type(v, `${name}Variant${++n}`)
        : this.type(v, name),
    );
    const unique = [...new Set(members)];
    const nonNull = unique.filter((m) => m !== "None");
    const inner = nonNull.length === 1 ? nonNull[0]! : `Union[${nonNull.join(", ")}]`;
    if (nonNull.length === 0) return "None";
    const expression = nonNull.length < unique.length ? `Optional[${inner}]` : inner;
    if (objects < 2) return expression;
    return this.alias(name, expression, variants);
  }

  /** A module-level alias for a union of objects, so it has a name of its own. */
  private alias(name: string, expression: string, variants: Schema[]): string {
    const key = `union:${shapeKey(variants)}`;
    const existing = this.named.get(key);
    if (existing) return existing;
    const unique = this.claim(name);
    this.named.set(key, unique);
    this.blocks.push(`${unique} = ${expression}\n`);
    return unique;
  }

  private object(schema: Schema, name: string): string {
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    if (Object.keys(properties).length === 0) {
      const extra = schema.additionalProperties;
      const value = extra && typeof extra === "object" ? this.type(extra as Schema, `${name}Value`) : "Any";
      return `Dict[str, ${value}]`;
    }
    const key = `object:${shapeKey(schema)}`;
    const existing = this.named.get(key);
    if (existing) return existing;
    const className = this.claim(name);
    this.named.set(key, className);

    const required = new Set((schema.required ?? []) as string[]);
    const fields = Object.entries(properties).map(([prop, propSchema]) => {
      if (!/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(prop)) {
        throw new Error(`python-types: property ${JSON.stringify(prop)} of ${className} is not a name`);
      }
      const child = propSchema.type === "array" ? singular(prop) : prop;
      const typeName = this.type(propSchema, `${className}${pascal(child)}`);
      const line = `    ${prop}: ${typeName}`;
      const description = typeof propSchema.description === "string" ? propSchema.description : null;
      return {
        prop,
        pythonName: !PY_KEYWORDS.has(prop) && !prop.includes("$"),
        entry: `${JSON.stringify(prop)}: ${typeName}`,
        line: description ? `    #: ${oneLine(description)}\n${line}` : line,
      };
    });
    const doc = typeof schema.description === "string" ? `    """${oneLine(schema.description)}"""\n` : "";
    const mandatory = fields.filter((f) => required.has(f.prop));
    const optional = fields.filter((f) => !required.has(f.prop));
    const body = (list: typeof fields) => list.map((f) => f.line).join("\n");
    // A key that is a Python keyword (e.g. `from`) needs TypedDict's functional form.
    const functional = (name: string, list: typeof fields, total: boolean) =>
      `${name} = TypedDict(${JSON.stringify(name)}, {${list.map((f) => f.entry).join(", ")}}${total ? "" : ", total=False"})\n`;
    if (fields.some((f) => !f.pythonName)) {
      if (optional.some((f) => !f.pythonName) && mandatory.length > 0) {
        throw new Error(`python-types: optional keyword property in ${className} beside required ones`);
      }
      if (optional.length === 0) this.blocks.push(functional(className, mandatory, true));
      else if (mandatory.length === 0) this.blocks.push(functional(className, optional, false));
      else {
        this.blocks.push(functional(`_${className}Required`, mandatory, true));
        this.blocks.push(
          `class ${className}(_${className}Required, total=False):\n${doc}${body(optional)}\n`,
        );
      }
    } else if (optional.length === 0) {
      this.blocks.push(`class ${className}(TypedDict):\n${doc}${body(mandatory)}\n`);
    } else if (mandatory.length === 0) {
      this.blocks.push(`class ${className}(TypedDict, total=False):\n${doc}${body(optional)}\n`);
    } else {
      this.blocks.push(`class _${className}Required(TypedDict):\n${body(mandatory)}\n`);
      this.blocks.push(`class ${className}(_${className}Required, total=False):\n${doc}${body(optional)}\n`);
    }
    return className;
  }

  private ref(ref: string): string {
    const match = /^#\/components\/schemas\/(.+)$/.exec(ref);
    const schemas = (this.document.components as Schema | undefined)?.schemas as Record<string, Schema>;
    const target = match ? schemas?.[match[1]!] : undefined;
    if (!target) throw new Error(`python-types: cannot resolve ${ref}`);
    return this.type(target, pascal(match![1]!));
  }

  private claim(name: string): string {
    let unique = name;
    for (let n = 2; this.used.has(unique); n++) unique = `${name}${n}`;
    this.used.add(unique);
    return unique;
  }
}

const oneLine = (text: string) => text.replace(/\s+/g, " ").replace(/"""/g, "'''").trim();

const jsonSchemaOf = (content: unknown): Schema | null => {
  const schema = (content as Record<string, { schema?: Schema }> | undefined)?.["application/json"]?.schema;
  return schema && (schema.properties || schema.anyOf || schema.oneOf || schema.$ref) ? schema : null;
};

/** The Python module: every request and success response body of the document, as types. */
export function pythonTypes(document: Schema): string {
  const emitter = new Emitter(document);
  const paths = document.paths as Record<string, Record<string, Schema>>;
  for (const operations of Object.values(paths)) {
    for (const operation of Object.values(operations)) {
      const op = pascal(String(operation.operationId));
      const request = jsonSchemaOf((operation.requestBody as Schema | undefined)?.content);
      if (request) emitter.root(request, `${op}Request`);
      const responses = Object.entries((operation.responses ?? {}) as Record<string, Schema>)
        .filter(([status]) => /^2\d\d$/.test(status))
        .map(([status, response]) => [status, jsonSchemaOf(response.content)] as const)
        .filter((entry): entry is readonly [string, Schema] => entry[1] !== null);
      const distinct = new Set(responses.map(([, schema]) => shapeKey(schema))).size;
      responses.forEach(([status, schema], i) => {
        emitter.root(schema, i === 0 || distinct === 1 ? `${op}Response` : `${op}Response${status}`);
      });
    }
  }
  const components = ((document.components as Schema | undefined)?.schemas ?? {}) as Record<string, Schema>;
  for (const [name, schema] of Object.entries(components)) emitter.root(schema, pascal(name));
  const info = document.info as { version: string };
  return [
    "# Generated by `npm run clients:generate` from the OpenAPI document (GET /openapi.json). Do not edit.",
    '"""The API\'s request and response bodies as TypedDicts, generated from its OpenAPI document."""',
    "",
    "from __future__ import annotations",
    "",
    "from typing import Any, Dict, List, Literal, NamedTuple, Optional, Tuple, TypedDict, Union",
    "",
    "#: The version of the API (OpenAPI info.version) these types were generated from.",
    `API_VERSION = ${JSON.stringify(info.version)}`,
    "",
    "",
    emitter.blocks.join("\n\n"),
  ].join("\n");
}
