/**
 * The keyword channel's tf (keyword-ranking.ts termFrequency) ranks an item on a term's plain words alone
 * unless the item matches one of the term's phrases: the same number, float for float, as ts_rank_cd of
 * the whole term, on texts that hold the words, their hyphenated and joined forms, and the phrases' parts.
 */
import { env } from "cloudflare:workers";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { parseConfig } from "../src/config/config";
import { createDb } from "../src/db/client";
import { keywordQuery, termAlternatives } from "../src/db/keyword-query";
import { termFrequency } from "../src/db/keyword-ranking";

const TEXTS = [
  "The pipeline is green.",
  "Pipeline pipeline PIPELINE: three times, and a pipelines list.",
  "The pipe-line was laid in a line by the pipe, then the pipe line again.",
  "A pipeline-list, a pipeline list and a pipelinelist.",
  "pip eline pipel ine pipe line: the parts, apart.",
  "The cut-over went well; the cutover plan said cut over at noon. Over and cut again.",
  "Nothing relevant here at all, only budget talk.",
  "weekly pipeline review, then the pipeline weekly, then weekly notes and the weekly pipeline again",
  `${"filler words around ".repeat(200)}pipeline ${"more filler ".repeat(300)}pipe-line at the end`,
];
const QUERIES = [
  "pipeline",
  "pipeline list",
  "cutover",
  "cut-over",
  "cut over",
  '"weekly pipeline" review',
  "pipe OR cutover",
];

describe("term frequency", () => {
  it("equals ts_rank_cd of the whole term on every text, for terms with and without phrases", async () => {
    const db = createDb(parseConfig(env));
    const terms = [...new Set(QUERIES.flatMap((q) => keywordQuery(q)?.terms ?? []))];
    // The texts exercise both branches: terms with phrase alternatives, and items matching one of them.
    expect(
      terms.filter((t) => termAlternatives(t).words && termAlternatives(t).others).length,
    ).toBeGreaterThan(3);
    const rows = sql.join(
      TEXTS.map((text, i) => sql`(${i}::int, setweight(to_tsvector('english', ${text}), 'C'))`),
      sql`, `,
    );
    const checks = terms.map(
      (term) => sql`select ${term}::text as term, t.i, ${termFrequency(sql`t.search`, term)} as split,
        (2 * ts_rank_cd('{0.5, 0.5, 0.5, 1}'::float4[], t.search, to_tsquery('english', ${term}), 0))::float8 as whole
        from (values ${rows}) as t(i, search)`,
    );
    const result = await db.execute(sql`${sql.join(checks, sql` union all `)}`);
    const found = result.rows.map((r) => ({
      term: r.term,
      text: r.i,
      split: Number(r.split),
      whole: Number(r.whole),
    }));
    expect(found).toHaveLength(terms.length * TEXTS.length);
    expect(found.filter((r) => r.whole > 0).length).toBeGreaterThan(20);
    expect(found.filter((r) => r.split !== r.whole)).toEqual([]);
  });
});
