/** The MemoryAgent's state in its SQLite storage: one row, one column per field. */
import {
  AGENT_PHASES,
  type AgentPhase,
  isRunErrorCode,
  RUN_TRIGGERS,
  type RunTrigger,
} from "../domain/memory";
import { type AgentState, initialState } from "../memory/run-schedule";

const CREATE = `CREATE TABLE IF NOT EXISTS schedule (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  subject_id TEXT,
  phase TEXT NOT NULL,
  trigger TEXT,
  next_run_at INTEGER,
  requested_at INTEGER,
  run_id TEXT,
  run_trigger TEXT,
  run_attempt INTEGER,
  run_requested_at INTEGER,
  run_started_at INTEGER,
  run_lease_until INTEGER,
  failures INTEGER NOT NULL,
  fresh_as_of INTEGER,
  last_succeeded_at INTEGER,
  last_error_code TEXT,
  last_error_message TEXT,
  dirty INTEGER NOT NULL
)`;

type Row = Record<string, SqlStorageValue>;

export function loadState(sql: SqlStorage): AgentState {
  sql.exec(CREATE);
  const row = sql.exec<Row>("SELECT * FROM schedule WHERE id = 1").toArray()[0];
  if (!row) return initialState();
  const runId = text(row.run_id);
  return {
    subjectKey: text(row.subject_id),
    phase: (AGENT_PHASES as readonly string[]).includes(row.phase as string)
      ? (row.phase as AgentPhase)
      : "idle",
    trigger: trigger(row.trigger),
    nextRunAt: int(row.next_run_at),
    requestedAt: int(row.requested_at),
    run: runId
      ? {
          id: runId,
          trigger: trigger(row.run_trigger) ?? "manual",
          attempt: int(row.run_attempt) ?? 1,
          requestedAt: int(row.run_requested_at) ?? 0,
          startedAt: int(row.run_started_at) ?? 0,
          leaseUntil: int(row.run_lease_until) ?? 0,
        }
      : null,
    failures: int(row.failures) ?? 0,
    freshAsOf: int(row.fresh_as_of),
    lastSucceededAt: int(row.last_succeeded_at),
    lastError: isRunErrorCode(row.last_error_code)
      ? { code: row.last_error_code, message: text(row.last_error_message) ?? "" }
      : null,
    dirty: int(row.dirty) === 1,
  };
}

export function saveState(sql: SqlStorage, s: AgentState): void {
  sql.exec(CREATE);
  sql.exec(
    `INSERT OR REPLACE INTO schedule (id, subject_id, phase, trigger, next_run_at, requested_at, run_id, run_trigger,
       run_attempt, run_requested_at, run_started_at, run_lease_until, failures, fresh_as_of, last_succeeded_at,
       last_error_code, last_error_message, dirty)
     VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    s.subjectKey,
    s.phase,
    s.trigger,
    s.nextRunAt,
    s.requestedAt,
    s.run?.id ?? null,
    s.run?.trigger ?? null,
    s.run?.attempt ?? null,
    s.run?.requestedAt ?? null,
    s.run?.startedAt ?? null,
    s.run?.leaseUntil ?? null,
    s.failures,
    s.freshAsOf,
    s.lastSucceededAt,
    s.lastError?.code ?? null,
    s.lastError?.message ?? null,
    s.dirty ? 1 : 0,
  );
}

const text = (v: SqlStorageValue | undefined): string | null => (typeof v === "string" ? v : null);
const int = (v: SqlStorageValue | undefined): number | null => (typeof v === "number" ? v : null);
const trigger = (v: SqlStorageValue | undefined): RunTrigger | null =>
  typeof v === "string" && (RUN_TRIGGERS as readonly string[]).includes(v) ? (v as RunTrigger) : null;

const CREATE_TOMBSTONE =
  "CREATE TABLE IF NOT EXISTS tombstone (id INTEGER PRIMARY KEY CHECK (id = 1), erased_at INTEGER NOT NULL)";

/**
 * Wipes the schedule and records the erase in one synchronous step (no await between them), so from the
 * next statement on no run holds the object and nothing sent before `erasedAt` is accepted.
 */
export function eraseState(sql: SqlStorage, erasedAt: number): void {
  sql.exec(CREATE);
  sql.exec(CREATE_TOMBSTONE);
  sql.exec("DELETE FROM schedule");
  sql.exec(
    "INSERT OR REPLACE INTO tombstone (id, erased_at) VALUES (1, max(?, coalesce((SELECT erased_at FROM tombstone WHERE id = 1), 0)))",
    erasedAt,
  );
}

/** The instant of the last erase of this object's subject, or null if it was never erased. */
export function erasedAt(sql: SqlStorage): number | null {
  sql.exec(CREATE_TOMBSTONE);
  return int(sql.exec<Row>("SELECT erased_at FROM tombstone WHERE id = 1").toArray()[0]?.erased_at);
}
