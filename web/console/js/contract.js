/**
 * Lists of values the console offers, read from the API's contract (/openapi.json) instead of copies that
 * drift: the search modes (the `mode` parameter of GET /items; the search page shows a mode selector only
 * when there is a choice) and the audit actions (the `action` parameter of GET /audit, for the audit page's
 * filter). A service that gains a mode or an action shows it without a change here.
 */
import { answerOf } from "./api.js";
import { OPERATIONS } from "./operations.js";

/**
 * @typedef {{ parameters?: { name?: string, schema?: { enum?: unknown[] } }[] }} ContractOperation
 * @typedef {{ paths?: Record<string, { get?: ContractOperation, post?: ContractOperation }> }} Contract
 */

/** @type {Promise<Contract> | undefined} */
let contract;

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

export const searchModes = () => queryValues("searchItems", "mode");

export const auditActions = () => queryValues("workspaceAudit", "action");

/** The formats POST /imports reads (the import command's). */
export const importFormats = () => queryValues("createImport", "format");
