import type { Clock } from "../domain/clock";
import type { GenerationRequest, GenerationResult, Generator, RunStats } from "../domain/generation";
import type { ItemStore } from "../domain/items";
import { type LlmClient, LlmError, type LlmMessage } from "../domain/llm";
import type { RunErrorCode, Statement, SupersededStatement, Verdict } from "../domain/memory";
import type { PeopleStore } from "../domain/people-store";
import { type PeopleView, peopleView, selfKeysOf, subjectNameOf } from "../domain/people-view";
import { statementKey } from "../domain/statements";
import { BudgetExhausted, type Budgets, RunAborted, RunMeter } from "./budget";
import { prepareChanges } from "./changed-items";
import { type CheckedStatement, checkDraft, type DraftCheck } from "./checks";
import { withoutDismissed } from "./dismissal-check";
import { endUserIdOf } from "./end-user";
import { type JudgedBefore, type JudgeVerdict, judgeDraft } from "./judge";
import { runAgentLoop } from "./loop";
import { preparePrevious } from "./previous-memory";
import { buildSystemPrompt, firstUserMessage } from "./prompt";
import { RefTable } from "./refs";
import { linkedEvidenceFinder, type RelatedEvidenceFinder } from "./related-evidence";
import {
  DEFAULT_SALVAGE,
  type DraftSalvage,
  type DropReason,
  dropStatements,
  type SalvagePolicy,
  salvageRecord,
  startSalvage,
} from "./salvage";
import { withStatementPeople } from "./statement-people";
import { createResearchTools } from "./tools";
import { truncate } from "./untrusted";
import { MEMORY_OPEN } from "./wire-format";

export interface GeneratorDeps {
  items: ItemStore;
  generator: LlmClient;
  judge: LlmClient;
  clock: Clock;
  budgets: Budgets;
  /** How much of a draft must survive for it to be accepted without the statements found at fault. */
  salvage?: SalvagePolicy;
  /**
   * Finds the changed items that touch a carried statement, so the judge sees them together (default:
   * threads, @-links, people with shared terms; see related-evidence.ts). Null: carried statements whose
   * cited items did not change are never judged again.
   */
  related?: RelatedEvidenceFinder | null;
  /**
   * What the subject's items say about people: the research tools speak of persons (top_people, person,
   * search_items by person), and each accepted statement carries the people its cited items name. Absent:
   * top_people groups author and participant strings, and statements carry no people.
   */
  people?: PeopleStore;
}

/** Drafts allowed per run: the first one and ONE revision with the checks' or the judge's feedback. */
export const MAX_DRAFTS = 2;

const REASON_CHARS = 2000;

/**
 * Generation for one subject: research loop -> deterministic checks -> judge, with at most one revision
 * round in the same conversation, then accepted or rejected. Salvage comes before revision: statements the
 * checks or the judge find at fault are dropped, and the draft goes on without them, when what is left is
 * well formed and at least the policy's share of the draft (see salvage.ts); the accepted result lists them.
 * A refresh names the changed items by ref in its prompt (changed-items.ts), and its judge sees only the
 * statements not judged before: those carried word for word from the previous memory, citing the same
 * unchanged items, keep that memory's verdict (judge.ts, JudgedBefore), unless a changed item touches them
 * (related-evidence.ts): those are judged again next to the newer items, and one the judge finds
 * superseded is dropped or sent back like an unsupported one (the result lists them: `superseded`).
 * A draft statement that restates one the subject dismissed is dropped before anything else
 * (dismissal-check.ts); it does not count against the salvage share.
 *
 * Outcomes:
 * - accepted: statements carry item ids; markdown is renderMemory(statements).
 * - rejected: a draft failed the checks or the judge twice. A checks rejection carries a verdict made by the
 *   checks (reason "checks failed: ...", unsupported = offending statements); the judge was not called for it.
 * - failed: no draft could be judged. Codes: the LlmError's code and retryable flag; "budget_turns",
 *   "budget_tool_calls", "budget_tokens", "budget_wall_time" (not retryable); "no_memory_block" when even
 *   the revised final answer has no <memory> block (retryable: another sample may well have one);
 *   "judge_invalid_verdict" (retryable); "aborted" when the caller's signal fired (retryable);
 *   "internal_error" for anything unexpected, e.g. the store failing (retryable).
 */
export function createGenerator(deps: GeneratorDeps): Generator {
  return {
    async generate(request: GenerationRequest, signal?: AbortSignal): Promise<GenerationResult> {
      const meter = new RunMeter(deps.clock, deps.budgets);
      const people = deps.people ? onceViewOf(deps.people, request.subjectKey) : undefined;
      try {
        const result = await generate(deps, request, meter, signal, people);
        if (result.outcome !== "accepted" || !people) return result;
        return { ...result, statements: withStatementPeople(await people(), result.statements) };
      } catch (error) {
        return failure(error, meter.stats());
      }
    },
  };
}

/** The subject's people, read and resolved once a run, when first needed. */
function onceViewOf(store: PeopleStore, subjectKey: string): () => Promise<PeopleView> {
  let view: Promise<PeopleView> | undefined;
  return () => {
    view ??= store
      .evidence(subjectKey)
      .then((e) =>
        peopleView(e, selfKeysOf(subjectKey, [e.memberEmail]), { subjectName: subjectNameOf(subjectKey) }),
      );
    return view;
  };
}

async function generate(
  deps: GeneratorDeps,
  request: GenerationRequest,
  meter: RunMeter,
  signal: AbortSignal | undefined,
  people: (() => Promise<PeopleView>) | undefined,
): Promise<GenerationResult> {
  const { subjectKey } = request;
  const refs = new RefTable();
  const previous = request.previous
    ? await preparePrevious(deps.items, subjectKey, request.previous, refs)
    : null;
  // After preparePrevious: the previous memory's items keep their refs in the list of changed items.
  const changes = request.previous
    ? await prepareChanges(deps.items, subjectKey, request.previous.generatedAt, refs, people)
    : null;
  const judgedBefore: JudgedBefore | null = request.previous
    ? {
        keys: new Set(request.previous.statements.map(statementKey)),
        at: request.previous.generatedAt,
        changed: changes?.changed ?? [],
      }
    : null;
  const previousIds = new Map(
    (request.previous?.statements ?? []).flatMap((s) => (s.id ? [[statementKey(s), s.id] as const] : [])),
  );
  const dismissed = request.dismissed ?? [];
  const related = deps.related === undefined ? linkedEvidenceFinder(deps.items) : deps.related;
  const superseded: SupersededStatement[] = [];
  const context = {
    subjectKey,
    now: deps.clock.now(),
    previous,
    changes,
    dismissed,
    budgets: deps.budgets,
  };
  const system = buildSystemPrompt(context);
  const messages: LlmMessage[] = [
    { role: "user", content: [{ type: "text", text: firstUserMessage(context) }] },
  ];
  const tools = createResearchTools({ subjectKey, items: deps.items, refs, ...(people ? { people } : {}) });
  const endUserId = await endUserIdOf(subjectKey);

  const policy = deps.salvage ?? DEFAULT_SALVAGE;
  for (let draft = 1; ; draft++) {
    const isLast = draft >= MAX_DRAFTS;
    const loop = await runAgentLoop(
      { llm: deps.generator, tools, meter, signal, endUserId },
      system,
      messages,
    );
    if (loop.kind === "budget_exhausted") throw new BudgetExhausted(loop.budget);

    const check = withoutDismissed(
      await checkDraft(loop.text, { subjectKey, items: deps.items, refs }),
      dismissed,
      previousIds,
    );
    let candidates: CheckedStatement[];
    let salvage: DraftSalvage;
    if (check.ok) {
      candidates = check.statements;
      salvage = startSalvage(candidates.length, check.dismissed);
    } else {
      const kept = check.structural
        ? null
        : dropStatements(
            startSalvage(check.statements.length, check.dismissed),
            check.statements,
            new Set(check.offending),
            (i) => ({ reason: (check.reasons.get(i) ?? []).join("; "), cause: "checks" }),
            policy,
          );
      if (!kept) {
        if (!isLast) {
          messages.push(userText(checksFeedback(check)));
          continue;
        }
        if (check.missingBlock) {
          return failed("no_memory_block", check.failures.join("; "), true, meter.stats());
        }
        const reason = truncate(`checks failed: ${check.failures.join("; ")}`, REASON_CHARS);
        const verdict: Verdict = { accepted: false, reason, unsupported: check.offending };
        return { outcome: "rejected", verdict, reason, stats: meter.stats() };
      }
      candidates = kept.statements;
      salvage = kept.salvage;
    }

    const judged = await judgeDraft(
      {
        judge: deps.judge,
        items: deps.items,
        subjectKey,
        refs,
        meter,
        signal,
        endUserId,
        related: related ?? undefined,
      },
      candidates,
      judgedBefore,
    );
    if (!judged.ok) return failed("judge_invalid_verdict", judged.problem, true, meter.stats());
    const verdict: JudgeVerdict = judged.verdict;
    const supersededBy = new Map(verdict.superseded.map((s) => [s.index, refs.resolve(s.by)?.id ?? s.by]));
    const flagged = new Set([...verdict.unsupported, ...supersededBy.keys()]);
    const stored: Verdict = {
      accepted: verdict.accepted,
      reason: verdict.reason,
      unsupported: verdict.unsupported,
    };
    if (verdict.accepted && flagged.size === 0) {
      return accepted(deps, candidates, salvage, stored, meter, superseded);
    }
    const supersededOf = (handled: SupersededStatement["handled"]) =>
      candidates.flatMap((s): SupersededStatement[] => {
        const by = supersededBy.get(s.index);
        if (by === undefined) return [];
        const statementId = previousIds.get(statementKey(s)) ?? null;
        return [{ statementId, section: s.section, text: s.text, byItemId: by, handled }];
      });
    if (flagged.size > 0) {
      const reasonOf = (i: number): DropReason => {
        const statement = candidates[i];
        const statementId = statement ? previousIds.get(statementKey(statement)) : undefined;
        const by = supersededBy.get(i);
        return {
          ...(by === undefined
            ? {
                reason: `the judge found it unsupported by its cited items: ${verdict.reason}`,
                cause: "unsupported",
              }
            : {
                reason: `the judge found it superseded by ${refs.refOf(by) ?? "a newer item"}: ${verdict.reason}`,
                cause: "superseded",
                supersededBy: by,
              }),
          ...(statementId ? { statementId } : {}),
        };
      };
      const kept = dropStatements(salvage, candidates, flagged, reasonOf, policy);
      if (kept) {
        const remaining: Verdict = { accepted: true, reason: verdict.reason, unsupported: [] };
        superseded.push(...supersededOf("dropped"));
        return accepted(deps, kept.statements, kept.salvage, remaining, meter, superseded);
      }
    }
    if (!isLast) {
      superseded.push(...supersededOf("revised"));
      messages.push(userText(judgeFeedback(verdict, candidates, refs)));
      continue;
    }
    const named = [...flagged].sort((a, b) => a - b);
    const reason = verdict.accepted
      ? truncate(
          `the judge accepted but found statements ${named.join(", ")} ${supersededBy.size > 0 ? "unsupported or superseded" : "unsupported"}: ${verdict.reason}`,
          REASON_CHARS,
        )
      : truncate(verdict.reason, REASON_CHARS);
    stored.unsupported = named;
    return { outcome: "rejected", verdict: stored, reason, stats: meter.stats() };
  }
}

function accepted(
  deps: GeneratorDeps,
  statements: CheckedStatement[],
  salvage: DraftSalvage,
  verdict: Verdict,
  meter: RunMeter,
  superseded: SupersededStatement[],
): GenerationResult {
  return {
    outcome: "accepted",
    statements: statements.map(toStatement),
    salvaged: salvageRecord(salvage),
    superseded,
    generatorModel: deps.generator.model,
    judgeModel: deps.judge.model,
    verdict,
    stats: meter.stats(),
  };
}

const toStatement = (s: CheckedStatement): Statement => ({
  section: s.section,
  text: s.text,
  itemIds: s.itemIds,
});

const userText = (text: string): LlmMessage => ({ role: "user", content: [{ type: "text", text }] });

function checksFeedback(check: Extract<DraftCheck, { ok: false }>): string {
  return [
    "Your answer was not accepted by the automatic checks:",
    ...check.failures.slice(0, 30).map((f) => `- ${f}`),
    `Fix these problems (research more with the tools if you need to), then answer again with the complete ${MEMORY_OPEN} block and nothing else.`,
  ].join("\n");
}

function judgeFeedback(verdict: JudgeVerdict, statements: CheckedStatement[], refs: RefTable): string {
  const line = (i: number, tail = "") => {
    const s = statements[i];
    return s ? [`- statement ${i}: "${truncate(s.text, 200)}" [${s.refs.join("][")}]${tail}`] : [];
  };
  const flagged = verdict.unsupported.flatMap((i) => line(i));
  const superseded = verdict.superseded.flatMap(({ index, by }) =>
    line(index, `, superseded by ${refs.resolve(by)?.ref ?? by}`),
  );
  return [
    `A fact-checker rejected your memory: ${truncate(verdict.reason, REASON_CHARS)}`,
    ...(flagged.length > 0 ? ["Statements not supported by the items they cite:", ...flagged] : []),
    ...(superseded.length > 0
      ? ["Statements of the previous memory that newer items supersede:", ...superseded]
      : []),
    `Every statement must say only what its cited items say, and what newer items changed must be stated as it is now. Correct, re-cite or drop these (research more if you need to), then answer again with the complete ${MEMORY_OPEN} block and nothing else.`,
  ].join("\n");
}

function failed(
  errorCode: RunErrorCode,
  errorMessage: string,
  retryable: boolean,
  stats: RunStats,
  retryAfterMs?: number,
): GenerationResult {
  return {
    outcome: "failed",
    errorCode,
    errorMessage: truncate(errorMessage, REASON_CHARS),
    retryable,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    stats,
  };
}

function failure(error: unknown, stats: RunStats): GenerationResult {
  if (error instanceof LlmError) {
    const retryAfterMs = error.retryAfterSeconds === undefined ? undefined : error.retryAfterSeconds * 1000;
    return failed(error.code, error.message, error.retryable, stats, retryAfterMs);
  }
  if (error instanceof BudgetExhausted) return failed(error.code, error.message, false, stats);
  if (error instanceof RunAborted) return failed("aborted", error.message, true, stats);
  const message = error instanceof Error ? error.message : String(error);
  return failed("internal_error", message, true, stats);
}
