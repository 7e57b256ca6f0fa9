/**
 * The memory operations of one subject: the caller's own at /memory, a team's at /teams/{team}/memory
 * (the same handlers, with the team as subject once membership is checked: a non-member gets 404, admin
 * or not). One function declares both, so the two can never drift apart.
 */
import * as res from "./answers";
import { type Answer, operation } from "./operation";
import {
  diffQuery,
  dismissBodySchema,
  idParams,
  memoryQuery,
  noParams,
  pageQuery,
  TEAM_PARAM_DOC,
  teamIdParams,
  teamParams,
} from "./requests";

const MAX_DISMISS_BODY_BYTES = 16 * 1024;

const refusal = (description: string): Answer => ({ description, schema: res.errorBody });

export function memoryOperations(forTeam: boolean) {
  const base = forTeam ? "/teams/{team}/memory" : "/memory";
  const whose = forTeam ? "The team's" : "The caller's";
  const id = (name: string, team: string) => (forTeam ? team : name);
  const params = forTeam ? teamIdParams : idParams;
  const subjectParams = forTeam ? teamParams : noParams;
  const docs = (more: Record<string, string> = {}) => (forTeam ? { team: TEAM_PARAM_DOC, ...more } : more);
  const notMember: Record<number, Answer> = forTeam
    ? { 404: refusal("No such team among the caller's teams") }
    : {};
  const orNoTeam = (what: string) => (forTeam ? `${what}, or no such team among the caller's` : what);

  return {
    getMemory: operation({
      id: id("getMemory", "getTeamMemory"),
      method: "GET",
      path: base,
      access: "memory:read",
      summary: `${whose} memory`,
      params: subjectParams,
      query: memoryQuery,
      docs: docs({
        wait: "Hold a 202 up to N seconds",
        format: "markdown, or statements as JSON",
        asOf: "The version that was current at this instant (redactions and dismissals applied); no wait",
      }),
      headers: ["If-None-Match"],
      answers: {
        200: {
          description:
            "The memory (ETag = version), or empty: true while there is no item to remember; with asOf, the version current then",
          schema: res.memoryAnswer,
        },
        202: { description: "Being generated; Retry-After", schema: res.generatingResponse },
        304: { description: "Not modified" },
        400: refusal("Bad wait, format or asOf"),
        404: refusal(
          forTeam
            ? "no_memory_at: there was no memory at asOf; not_found: no such team among the caller's"
            : "no_memory_at: there was no memory at asOf",
        ),
        503: refusal("llm_not_configured, generation_failing, or the database is down"),
      },
      audit: ["memory.read", "memory.version.read"],
    }),
    diffVersion: operation({
      id: id("diffVersion", "diffTeamVersion"),
      method: "GET",
      path: `${base}/versions/{id}/diff`,
      access: "memory:read",
      summary: "What changed in this version against another (default: the version before it)",
      description:
        "Statement by statement, by statement id: added, kept, and removed with the reason (superseded, " +
        "unsupported, dropped, redacted, dismissed).",
      params,
      query: diffQuery,
      docs: docs({ id: "Version id", against: "The version to compare with (default: the one before)" }),
      answers: {
        200: { description: "The changes", schema: res.versionDiffResponse },
        404: refusal(orNoTeam("No such version")),
      },
      audit: ["memory.diff.read"],
    }),
    dismissStatement: operation({
      id: id("dismissStatement", "dismissTeamStatement"),
      method: "POST",
      path: `${base}/statements/{id}/dismiss`,
      access: "items:write",
      summary: forTeam
        ? "Dismiss a statement of the team's memory (any member)"
        : "Dismiss a statement of the caller's memory",
      description:
        "Takes the statement out of the current version at once, as a redaction does (new ETag; the edge " +
        "cache follows before the answer), and records the dismissal: later runs are told, and a draft " +
        "statement restating it (same normalised text, or the same citations and near-identical words) is dropped.",
      params,
      docs: docs({ id: "Statement id (statements[].id of ?format=json)" }),
      body: { schema: dismissBodySchema, required: false, maxBytes: MAX_DISMISS_BODY_BYTES },
      answers: {
        201: { description: "Dismissed", schema: res.dismissResponse },
        400: refusal("The body is not JSON"),
        404: refusal(orNoTeam("No such statement in the current memory")),
        413: refusal("The body is too large"),
        415: refusal("The body is not JSON"),
        422: refusal("Invalid reason"),
      },
      audit: ["statement.dismiss"],
    }),
    listDismissals: operation({
      id: id("listDismissals", "listTeamDismissals"),
      method: "GET",
      path: `${base}/dismissals`,
      access: "memory:read",
      summary: `${whose} dismissed statements, newest first`,
      params: subjectParams,
      docs: docs(),
      answers: { 200: { description: "The dismissals", schema: res.dismissalsResponse }, ...notMember },
      audit: ["memory.dismissals.list"],
    }),
    withdrawDismissal: operation({
      id: id("withdrawDismissal", "withdrawTeamDismissal"),
      method: "DELETE",
      path: `${base}/dismissals/{id}`,
      access: "items:write",
      summary: "Withdraw a dismissal: the statement may return with the next run",
      params,
      docs: docs({ id: "Dismissal id" }),
      answers: { 204: { description: "Withdrawn" }, 404: refusal(orNoTeam("No such dismissal")) },
      audit: ["dismissal.withdraw"],
    }),
    refreshMemory: operation({
      id: id("refreshMemory", "refreshTeamMemory"),
      method: "POST",
      path: `${base}/refresh`,
      access: "memory:read",
      summary: `Ask for a run of ${whose.toLowerCase()} memory now`,
      params: subjectParams,
      docs: docs(),
      answers: {
        202: { description: "Accepted", schema: res.refreshResponse },
        ...notMember,
        429: refusal("Inside the minimum interval (Retry-After)"),
      },
    }),
    listRuns: operation({
      id: id("listRuns", "listTeamRuns"),
      method: "GET",
      path: `${base}/runs`,
      access: "memory:read",
      summary: `${whose} runs ledger, newest first`,
      params: subjectParams,
      query: pageQuery,
      docs: docs({ limit: "Page size", cursor: "Next page" }),
      answers: {
        200: { description: "One page of runs", schema: res.runsResponse },
        400: refusal("Bad parameter"),
        ...notMember,
      },
      audit: ["memory.runs.list"],
    }),
    listVersions: operation({
      id: id("listVersions", "listTeamVersions"),
      method: "GET",
      path: `${base}/versions`,
      access: "memory:read",
      summary: `${whose} accepted memory versions, newest first`,
      params: subjectParams,
      query: pageQuery,
      docs: docs({ limit: "Page size", cursor: "Next page" }),
      answers: {
        200: { description: "One page of versions", schema: res.versionsResponse },
        400: refusal("Bad parameter"),
        ...notMember,
      },
      audit: ["memory.versions.list"],
    }),
    getVersion: operation({
      id: id("getVersion", "getTeamVersion"),
      method: "GET",
      path: `${base}/versions/{id}`,
      access: "memory:read",
      summary: "One version with its statements, verdict and citations",
      params,
      docs: docs({ id: "Version id" }),
      answers: {
        200: { description: "The version", schema: res.versionResponse },
        404: refusal(orNoTeam("No such version")),
      },
      audit: ["memory.version.read"],
    }),
  };
}

export type MemoryOperations = ReturnType<typeof memoryOperations>;
