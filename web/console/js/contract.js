/**
 * What this service offers, read from the service instead of copies that drift: the search modes it answers
 * (GET /health's `search.modes`: keyword only without an embedding model; the search page shows a mode
 * selector only when there is a choice), whether its models are the fake LLM of `npm run dev -- --fake-llm`
 * (`llm.fake`: generated output is marked "fake model"), and the audit actions (the `action` parameter of
 * GET /audit in /openapi.json, for the audit page's filter).
 */
/** @import { operations } from "../../../clients/typescript/src/generated/openapi.js" */
import { answerOf } from "./api.js";
import { OPERATIONS } from "./operations.js";

/**
 * @typedef {operations["health"]["responses"][200]["content"]["application/json"]} Health
 * @typedef {{ parameters?: { name?: string, schema?: { enum?: unknown[] } }[] }} ContractOperation
 * @typedef {{ paths?: Record<string, { get?: ContractOperation, post?: ContractOperation }> }} Contract
 */

/** @type {Promise<Contract> | undefined} */
let contract;
/** @type {Promise<Health> | undefined} */
let health;

/**
 * The values the contract lists for the query parameter `name` of an operation (its enum); none when it
 * lists none or cannot be read (then read again next time).
 * @param {"searchItems" | "workspaceAudit" | "createImport"} id
 * @param {string} name
 * @returns {Promise<string[]>}
 */
async function queryValues(id, name) {
  try {
    contract ??= /** @type {Promise<Contract>} */ (answerOf("openapi"));
    const { path, method } = OPERATIONS[id];
    const operations = (await contract).paths?.[path];
    const operation = method === "POST" ? operations?.post : operations?.get;
    const parameter = operation?.parameters?.find((p) => p.name === name);
    return (parameter?.schema?.enum ?? []).filter((v) => typeof v === "string");
  } catch {
    contract = undefined;
    return [];
  }
}

/** GET /health, once a page (null when it cannot be read: then read again next time). */
async function service() {
  try {
    health ??= /** @type {Promise<Health>} */ (answerOf("health"));
    return await health;
  } catch {
    health = undefined;
    return null;
  }
}

/** The search modes this service answers (none known: an empty list, and no selector). */
export const searchModes = async () => (await service())?.search.modes ?? [];

/** Whether the memories here are written by the fake LLM (`npm run dev -- --fake-llm`). */
export const fakeModel = async () => (await service())?.llm.fake === true;

export const auditActions = () => queryValues("workspaceAudit", "action");

/** The formats POST /imports reads (the import command's). */
export const importFormats = () => queryValues("createImport", "format");
