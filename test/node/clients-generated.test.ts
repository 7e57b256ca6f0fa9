/**
 * The clients' generated types are what `npm run clients:generate` makes of the OpenAPI document today,
 * and each client's version follows the API's: a contract change without regeneration fails here.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  generateClientFiles,
  PYTHON_TYPES,
  servedDocument,
  staleFiles,
  TYPESCRIPT_TYPES,
} from "../../scripts/lib/clients/generate";
import { ROOT } from "../../scripts/lib/dev-secret";

const minor = (version: string) => version.split(".").slice(0, 2).join(".");

describe("the clients' generated types", () => {
  it("are what regenerating from the OpenAPI document gives (npm run clients:generate changes nothing)", async () => {
    expect(staleFiles(await generateClientFiles())).toEqual([]);
  });

  it("would be stale after a change of the contract, in both languages", async () => {
    const document = servedDocument() as { paths: Record<string, Record<string, Record<string, unknown>>> };
    const search = document.paths["/items"]!.get!;
    const hit = (
      search.responses as Record<string, { content: Record<string, { schema: Record<string, unknown> }> }>
    )["200"]!.content["application/json"]!.schema as {
      properties: { items: { items: { properties: object } } };
    };
    hit.properties.items.items.properties = {
      ...hit.properties.items.items.properties,
      score: { type: "number" },
    };
    const files = await generateClientFiles(document as Record<string, unknown>);
    expect(staleFiles(files).sort()).toEqual([PYTHON_TYPES, TYPESCRIPT_TYPES].sort());
    expect(files.find((f) => f.path === PYTHON_TYPES)!.content).toContain("    score: float");
  });

  it("carry the API's version, and each client's minor version is the API's", () => {
    const api = (servedDocument().info as { version: string }).version;
    const typescript = JSON.parse(readFileSync(`${ROOT}clients/typescript/package.json`, "utf8")).version;
    const pyproject = /^version = "([^"]+)"$/m.exec(
      readFileSync(`${ROOT}clients/python/pyproject.toml`, "utf8"),
    )?.[1];
    const pythonModule = /^__version__ = "([^"]+)"$/m.exec(
      readFileSync(`${ROOT}clients/python/unified_memory/__init__.py`, "utf8"),
    )?.[1];
    expect(minor(typescript)).toBe(minor(api));
    expect(minor(pyproject ?? "")).toBe(minor(api));
    expect(pythonModule).toBe(pyproject);
    expect(readFileSync(`${ROOT}${TYPESCRIPT_TYPES}`, "utf8")).toContain(
      `API_VERSION = ${JSON.stringify(api)}`,
    );
    expect(readFileSync(`${ROOT}${PYTHON_TYPES}`, "utf8")).toContain(`API_VERSION = ${JSON.stringify(api)}`);
  });
});
