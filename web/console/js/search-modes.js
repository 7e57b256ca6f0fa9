/**
 * The search modes the API offers, read from its contract (the `mode` parameter of GET /items in
 * /openapi.json, if it has one): the search page shows a mode selector only when there is a choice, so a
 * service that gains modes gets the selector without a change here.
 */
import { getJson } from "./api.js";

/**
 * @typedef {{ paths?: Record<string, { get?: { parameters?: { name?: string, schema?: { enum?: unknown[] } }[] } }> }} Contract
 * @returns {Promise<string[]>}
 */
export async function searchModes() {
  try {
    const contract = /** @type {Contract} */ (await getJson("/openapi.json"));
    const mode = contract.paths?.["/items"]?.get?.parameters?.find((p) => p.name === "mode");
    return (mode?.schema?.enum ?? []).filter((m) => typeof m === "string");
  } catch {
    return [];
  }
}
