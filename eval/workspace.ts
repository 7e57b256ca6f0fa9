/**
 * What an eval runs on: each subject's items, the refresh batches, the dataset of expectations, and every
 * item with its visibility (for the privacy check). The demo workspace, or a folder:
 *   <folder>/items/<userId>.json     an array of POST /items items, owned by <userId>
 *   <folder>/refresh/<userId>.json   (optional) items posted before the refresh
 *   <folder>/eval.json               an EvalDataset (fixtures/demo/eval-types.ts)
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { demoEvalDataset } from "../fixtures/demo/eval-dataset";
import type { EvalDataset } from "../fixtures/demo/eval-types";
import { type ApiItem, DEMO_USER_IDS, demoRefreshBatch, demoWorkspace } from "../fixtures/demo-workspace";
import type { WorkspaceItem } from "./lib/observation";

export interface EvalWorkspace {
  dataset: EvalDataset;
  /** Items to ingest first, by owner (user id). */
  items: Record<string, ApiItem[]>;
  /** Items to ingest before the refresh, by owner. */
  refresh: Record<string, ApiItem[]>;
}

export function demoEvalWorkspace(now: Date): EvalWorkspace {
  const ws = demoWorkspace(now);
  return {
    dataset: demoEvalDataset(now),
    items: Object.fromEntries(DEMO_USER_IDS.map((key) => [key, ws.itemsByOwner[key]])),
    refresh: Object.fromEntries(DEMO_USER_IDS.map((key) => [key, demoRefreshBatch(now, key)])),
  };
}

export function folderEvalWorkspace(folder: string): EvalWorkspace {
  const readOwners = (dir: string): Record<string, ApiItem[]> => {
    if (!existsSync(dir)) return {};
    return Object.fromEntries(
      readdirSync(dir)
        .filter((f) => f.endsWith(".json"))
        .map((f) => [f.slice(0, -5), JSON.parse(readFileSync(join(dir, f), "utf8")) as ApiItem[]]),
    );
  };
  const items = readOwners(join(folder, "items"));
  if (Object.keys(items).length === 0) throw new Error(`no items/<userId>.json files in ${folder}`);
  const datasetFile = join(folder, "eval.json");
  if (!existsSync(datasetFile)) throw new Error(`no eval.json (the expectations) in ${folder}`);
  const dataset = JSON.parse(readFileSync(datasetFile, "utf8")) as EvalDataset;
  return { dataset, items, refresh: readOwners(join(folder, "refresh")) };
}

/**
 * The users to register as workspace members before ingesting: every owner, and every user an item is
 * shared with (sharing names only known members). `team:` targets are not users; a folder workspace that
 * shares with teams is not supported by the eval yet (the ingest would answer 422).
 */
export function workspaceMembers(ws: EvalWorkspace): string[] {
  const users = new Set<string>();
  for (const byOwner of [ws.items, ws.refresh]) {
    for (const [owner, items] of Object.entries(byOwner)) {
      users.add(owner);
      for (const item of items) {
        for (const target of item.sharedWith ?? []) if (!target.startsWith("team:")) users.add(target);
      }
    }
  }
  return [...users].sort();
}

/** Every item of both phases with its owner and sharing, for the privacy fingerprints. */
export function workspaceItems(ws: EvalWorkspace): WorkspaceItem[] {
  return [ws.items, ws.refresh].flatMap((byOwner) =>
    Object.entries(byOwner).flatMap(([owner, items]) =>
      items.map((i) => ({ owner, sharedWith: i.sharedWith ?? [], title: i.title ?? "", body: i.body })),
    ),
  );
}
