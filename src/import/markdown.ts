/**
 * A folder of Markdown notes (an Obsidian vault, a Notion Markdown export): one `doc` item per file, linked to the
 * notes it names through [[wikilinks]], ![[embeds]], relative Markdown links and front-matter wikilinks.
 * externalId = the file's path inside the folder with Notion's 32-hex ids removed, so links resolve and re-imports match.
 */
import { parse as parseYaml } from "yaml";
import type { ImportEvent, ImportItem } from "./records";
import {
  baseName,
  dateInName,
  dirName,
  isoFromLooseDate,
  isRecord,
  joinPath,
  normalizePath,
  stripBom,
  unique,
} from "./text-utils";

export interface MarkdownFile {
  path: string;
  text: string;
  /** The file's modification time: the note's date when neither its front matter nor its name has one. */
  fileTime?: string;
}

const MAX_LINKS = 200;
const NOTION_ID = /\s+[0-9a-f]{32}(?=\.[^./]+$|$)/i;
const MARKDOWN_FILE = /\.(md|markdown)$/i;

/** The stable form of a note's path: Notion ids removed from every segment. */
export function noteId(path: string): string {
  return normalizePath(path)
    .split("/")
    .map((segment) => segment.replace(NOTION_ID, ""))
    .join("/");
}

function stem(path: string): string {
  return baseName(path).replace(/\.[^.]+$/, "");
}

function splitFrontMatter(text: string): { fields: Record<string, unknown>; body: string; problem?: string } {
  const match = /^---[ \t]*\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/.exec(text);
  if (!match) return { fields: {}, body: text };
  const body = text.slice(match[0].length);
  try {
    const parsed: unknown = parseYaml(match[1]!);
    if (parsed == null) return { fields: {}, body };
    if (!isRecord(parsed)) return { fields: {}, body, problem: "front matter is not a mapping" };
    return { fields: JSON.parse(JSON.stringify(parsed)) as Record<string, unknown>, body };
  } catch (error) {
    return {
      fields: {},
      body,
      problem: `front matter is not valid YAML: ${(error as Error).message.split("\n")[0]}`,
    };
  }
}

/** The body without fenced or inline code, where links and tags are not meant. */
function withoutCode(body: string): string {
  return body.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[ \t]*$/gm, "").replace(/`[^`\n]*`/g, "");
}

function firstHeading(body: string): string | undefined {
  const match = /^#[ \t]+(.+?)[ \t#]*$/m.exec(withoutCode(body));
  return match ? match[1]!.trim() : undefined;
}

function tagsOf(fields: Record<string, unknown>, body: string): string[] {
  const raw = fields.tags ?? fields.tag;
  const declared = Array.isArray(raw) ? raw : typeof raw === "string" ? raw.split(/[,\s]+/) : [];
  const inline = [...withoutCode(body).matchAll(/(?:^|[\s(])#([\p{L}\p{N}_][\p{L}\p{N}_/-]*)/gu)]
    .map((m) => m[1]!)
    .filter((tag) => !/^\d+$/.test(tag));
  return unique(
    [...declared, ...inline]
      .filter((t): t is string => typeof t === "string")
      .map((t) => t.replace(/^#/, "").trim())
      .filter((t) => t !== ""),
  );
}

/** Finds the imported note a link names, the way Obsidian does: by path, or by file name anywhere in the vault. */
class NoteIndex {
  private readonly byPath = new Map<string, string>();
  private readonly byStem = new Map<string, string[]>();

  constructor(ids: string[]) {
    for (const id of ids) {
      this.byPath.set(id.toLowerCase(), id);
      this.byPath.set(id.replace(MARKDOWN_FILE, "").toLowerCase(), id);
      const key = stem(id).toLowerCase();
      this.byStem.set(key, [...(this.byStem.get(key) ?? []), id]);
    }
  }

  wikilink(target: string, from: string): string | undefined {
    const name = noteId(target.trim()).replace(/^\//, "");
    if (name === "") return undefined;
    const exact = this.byPath.get(name.toLowerCase());
    if (exact) return exact;
    if (/\.[a-z0-9]+$/i.test(name) && !MARKDOWN_FILE.test(name)) return undefined; // an attachment, not a note
    const candidates = this.byStem.get(stem(name).toLowerCase()) ?? [];
    const suffixed = candidates.filter((id) => id.toLowerCase().endsWith(`${name.toLowerCase()}.md`));
    const pool = suffixed.length > 0 ? suffixed : name.includes("/") ? [] : candidates;
    // Ties go to the note nearest the linking one, then the shortest path, as Obsidian does.
    const near = pool.find((id) => dirName(id) === dirName(from));
    if (near ?? pool[0]) return near ?? [...pool].sort((a, b) => a.length - b.length)[0];
    return name.includes("/") ? `${name}.md` : `${name}.md`; // not imported yet: where Obsidian would create it
  }

  relative(target: string, from: string): string | undefined {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("#")) return undefined;
    let path = target.replace(/^<|>$/g, "").split("#")[0]!.split("?")[0]!;
    try {
      path = decodeURIComponent(path);
    } catch {
      // keep it as written
    }
    if (path === "" || !MARKDOWN_FILE.test(path)) return undefined;
    const resolved = noteId(path.startsWith("/") ? path.slice(1) : joinPath(dirName(from), path));
    return this.byPath.get(resolved.toLowerCase()) ?? resolved;
  }
}

function linksOf(fields: Record<string, unknown>, body: string, from: string, index: NoteIndex) {
  const links: { externalId: string; kind: string }[] = [];
  const add = (externalId: string | undefined, kind: string) => {
    if (externalId && externalId !== from && !links.some((l) => l.externalId === externalId)) {
      links.push({ externalId, kind });
    }
  };
  const wikilinks = /(!?)\[\[([^\]|#^\n]*)(?:[#^][^\]|\n]*)?(?:\|[^\]\n]*)?\]\]/g;
  for (const value of JSON.stringify(fields).matchAll(wikilinks))
    add(index.wikilink(value[2]!, from), "property");
  const code = withoutCode(body);
  for (const m of code.matchAll(wikilinks)) add(index.wikilink(m[2]!, from), m[1] ? "embed" : "link");
  for (const m of code.matchAll(/!?\[[^\]\n]*\]\((<[^>\n]+>|[^)\s]+)(?:\s+"[^"\n]*")?\)/g)) {
    add(index.relative(m[1]!, from), "link");
  }
  return links;
}

function toItem(file: MarkdownFile, id: string, index: NoteIndex): ImportEvent {
  const at = { file: file.path, position: "file" };
  const { fields, body, problem } = splitFrontMatter(stripBom(file.text).replace(/\r\n?/g, "\n"));
  const title =
    (typeof fields.title === "string" && fields.title.trim()) ||
    firstHeading(body) ||
    stem(id) ||
    baseName(id);
  const when =
    isoFromLooseDate(fields.date) ??
    isoFromLooseDate(fields.created) ??
    isoFromLooseDate(fields.updated) ??
    dateInName(baseName(id)) ??
    (file.fileTime ? isoFromLooseDate(file.fileTime) : null);
  if (!when) {
    return {
      type: "error",
      message: "no date: no date/created field, no date in the name and no file time",
      at,
    };
  }
  const links = linksOf(fields, body, id, index);
  const tags = tagsOf(fields, body);
  const aliases = Array.isArray(fields.aliases) ? fields.aliases.filter((a) => typeof a === "string") : [];
  const item: ImportItem = {
    externalId: id,
    kind: "doc",
    title,
    body: body.trim(),
    occurredAt: when,
    metadata: {
      path: id,
      ...(Object.keys(fields).length > 0 ? { frontMatter: fields } : {}),
      ...(tags.length > 0 ? { tags } : {}),
      ...(aliases.length > 0 ? { aliases } : {}),
      ...(problem ? { frontMatterProblem: problem } : {}),
      ...(links.length > MAX_LINKS ? { linksDropped: links.length - MAX_LINKS } : {}),
    },
    ...(links.length > 0 ? { links: links.slice(0, MAX_LINKS) } : {}),
  };
  const author = fields.author ?? fields.authors;
  if (typeof author === "string" && author.trim() !== "") item.author = author.replace(/^\[\[|\]\]$/g, "");
  return { type: "item", item, at };
}

export function* parseMarkdownFolder(files: MarkdownFile[]): Iterable<ImportEvent> {
  const notes = files.filter((f) => MARKDOWN_FILE.test(f.path));
  const index = new NoteIndex(notes.map((f) => noteId(f.path)));
  const seen = new Set<string>();
  for (const file of files) {
    if (!MARKDOWN_FILE.test(file.path)) {
      yield { type: "skipped", reason: "not a Markdown file", at: { file: file.path, position: "file" } };
      continue;
    }
    const id = noteId(file.path);
    if (seen.has(id.toLowerCase())) {
      const message = `another file has the same path once Notion ids are removed (${id})`;
      yield { type: "error", message, at: { file: file.path, position: "file" } };
      continue;
    }
    seen.add(id.toLowerCase());
    yield toItem(file, id, index);
  }
}
