/**
 * GitHub issues and pull requests as the REST API returns them (a JSON array, e.g. concatenated pages, or NDJSON):
 * issues → `task`, pull requests → `pull_request`; externalId = owner/repo#number; #123 references → links.
 */
import { type ItemPerson, keepValid, MAX_ITEM_PEOPLE, MAX_PERSON_NAME } from "../domain/people/model";
import { type JsonRecord, jsonRecordsOfText } from "./json-records";
import type { ImportEvent, ImportItem } from "./records";
import { boundedText, storableText } from "./text";
import { isRecord, jsonObject, str } from "./text-utils";

export interface GithubFile {
  path: string;
  text: string;
}

const MAX_LINKS = 200;

/** owner/repo from repository_url (issues endpoint), base.repo (pulls endpoint) or html_url. */
function repoOf(record: Record<string, unknown>): string | undefined {
  const fromApi = /\/repos\/([^/]+\/[^/]+)$/.exec(str(record.repository_url) ?? "");
  if (fromApi) return fromApi[1];
  const base =
    isRecord(record.base) && isRecord(record.base.repo) ? str(record.base.repo.full_name) : undefined;
  if (base) return base;
  const fromHtml = /^https?:\/\/[^/]+\/([^/]+\/[^/]+)\/(?:issues|pull)\/\d+/.exec(str(record.html_url) ?? "");
  return fromHtml?.[1];
}

function isPullRequest(record: Record<string, unknown>): boolean {
  return (
    isRecord(record.pull_request) ||
    (isRecord(record.head) && isRecord(record.base)) ||
    /\/pull\/\d+$/.test(str(record.html_url) ?? "")
  );
}

/** #12, owner/repo#12 and github.com/owner/repo/(issues|pull)/12 written in the text. */
function referencesIn(text: string, repo: string): string[] {
  const refs = new Set<string>();
  const withoutCode = text.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
  // An owner/repo starts only where a run of name characters starts (its look-behind), so no run is
  // rescanned from each of its dots or dashes: linear even on a long `a.b.c…` or `-.-.-` line.
  for (const m of withoutCode.matchAll(/(?:(?<![\w/#&.-])([\w.-]+\/[\w.-]+)|(?<![\w/#&]))#(\d+)\b/g))
    refs.add(`${m[1] ?? repo}#${m[2]}`);
  for (const m of withoutCode.matchAll(
    /https?:\/\/github\.com\/([\w.-]+\/[\w.-]+)\/(?:issues|pull)\/(\d+)/g,
  )) {
    refs.add(`${m[1]}#${m[2]}`);
  }
  return [...refs];
}

/** The author, assignees, requested reviewers and merger by their logins (`[bot]` and type Bot marked). */
function githubPeople(record: Record<string, unknown>): ItemPerson[] {
  const out: ItemPerson[] = [];
  const seen = new Set<string>();
  const add = (role: ItemPerson["role"], user: unknown) => {
    if (!isRecord(user)) return;
    const login = str(user.login);
    if (!login || !/^[A-Za-z0-9-]{1,39}(?:\[bot\])?$/.test(login) || seen.has(login.toLowerCase())) return;
    seen.add(login.toLowerCase());
    const name = storableText(str(user.name), MAX_PERSON_NAME);
    const email = str(user.email);
    out.push({
      role,
      handles: [{ kind: "github", value: login }],
      ...(name ? { name } : {}),
      ...(email && email.length <= 254 && email.includes("@") ? { email } : {}),
      ...(user.type === "Bot" || login.endsWith("[bot]") ? { bot: true } : {}),
    });
  };
  add("author", record.user);
  for (const list of [record.assignees, record.requested_reviewers]) {
    if (Array.isArray(list)) for (const user of list.slice(0, MAX_ITEM_PEOPLE)) add("participant", user);
  }
  add("participant", record.merged_by);
  return out.flatMap((p) => keepValid(p) ?? []).slice(0, MAX_ITEM_PEOPLE);
}

function toItem(record: Record<string, unknown>): ImportItem | string {
  const number = record.number;
  if (typeof number !== "number") return "has no issue number";
  const repo = repoOf(record);
  if (!repo) return "names no repository (repository_url, base.repo or html_url)";
  const created = str(record.created_at);
  if (!created || Number.isNaN(Date.parse(created))) return "has no valid created_at";
  const externalId = `${repo}#${number}`;
  const body = boundedText(typeof record.body === "string" ? record.body : "");
  const title = storableText(str(record.title), 1000);
  const user = storableText(isRecord(record.user) ? str(record.user.login) : undefined, 500);
  const assignees = Array.isArray(record.assignees)
    ? record.assignees.flatMap((a) => (isRecord(a) && str(a.login) ? [str(a.login)!] : []))
    : [];
  const labels = Array.isArray(record.labels)
    ? record.labels.flatMap((l) =>
        typeof l === "string" ? [l] : isRecord(l) && str(l.name) ? [str(l.name)!] : [],
      )
    : [];
  const pull = isPullRequest(record);
  const merged =
    pull &&
    (str(record.merged_at) ??
      (isRecord(record.pull_request) ? str(record.pull_request.merged_at) : undefined));
  const refs = referencesIn(`${title ?? ""}\n${body.text}`, repo).filter((ref) => ref !== externalId);
  const people = githubPeople(record);
  const milestone = isRecord(record.milestone) ? str(record.milestone.title) : undefined;
  return {
    externalId,
    kind: pull ? "pull_request" : "task",
    ...(title ? { title } : {}),
    body: body.text,
    ...(user ? { author: user } : {}),
    participants: [...new Set([...(user ? [user] : []), ...assignees])].slice(0, 500),
    ...(people.length > 0 ? { people } : {}),
    occurredAt: new Date(created).toISOString(),
    ...(str(record.html_url) ? { url: str(record.html_url) } : {}),
    metadata: {
      repository: repo,
      number,
      state: str(record.state) ?? "unknown",
      ...(str(record.state_reason) ? { stateReason: str(record.state_reason) } : {}),
      ...(merged ? { mergedAt: merged } : {}),
      ...(record.draft === true ? { draft: true } : {}),
      labels,
      ...(user ? { authorLogin: user } : {}),
      ...(assignees.length > 0 ? { assignees } : {}),
      ...(milestone ? { milestone } : {}),
      ...(typeof record.comments === "number" ? { comments: record.comments } : {}),
      ...(str(record.closed_at) ? { closedAt: str(record.closed_at) } : {}),
      ...(str(record.updated_at) ? { updatedAt: str(record.updated_at) } : {}),
      ...(body.truncated ? { truncated: true } : {}),
    },
    ...(refs.length > 0
      ? { links: refs.slice(0, MAX_LINKS).map((ref) => ({ externalId: ref, kind: "reference" })) }
      : {}),
  };
}

/** One record of a GitHub export (the CLI streams them with JsonRecordSplitter) → its event. */
export function githubEvent(record: JsonRecord, path: string): ImportEvent {
  const object = jsonObject(record, path, "");
  if ("type" in object) return object;
  const item = toItem(object.value);
  if (typeof item === "string") return { type: "error", message: `issue ${item}`, at: object.at };
  return { type: "item", item, at: object.at };
}

/** A GitHub export held whole as text. */
export function* parseGithub(file: GithubFile): Iterable<ImportEvent> {
  for (const record of jsonRecordsOfText(file.text)) yield githubEvent(record, file.path);
}
