/**
 * A folder of Markdown notes (an Obsidian vault, a Notion Markdown export): one `doc` item per file, linked to the
 * notes it names through [[wikilinks]], ![[embeds]], relative Markdown links and front-matter wikilinks.
 * externalId = the file's path inside the folder with Notion's 32-hex ids removed, so links resolve and re-imports match.
 */
import { parse as parseYaml } from "yaml";
import type { ImportEvent, ImportItem } from "./records";
import { boundedText, storableText } from "./text";
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

/**
 * The body without fenced or inline code, where links and tags are not meant. Fences are found line by line
 * (CommonMark: a fence of 3+ backticks or tildes, indented at most 3 spaces, closed by a line of at least as
 * many of the same character; an unclosed fence runs to the end), so no line is searched more than once.
 */
function withoutCode(body: string): string {
  const kept: string[] = [];
  let fence: { char: string; length: number } | null = null;
  for (const line of body.split("\n")) {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (marker && marker[1]![0] === fence.char && marker[1]!.length >= fence.length) {
        if (line.slice(marker[0].length).trim() === "") fence = null;
      }
      continue;
    }
    if (marker && !(marker[1]![0] === "`" && line.slice(marker[0].length).includes("`"))) {
      fence = { char: marker[1]![0]!, length: marker[1]!.length };
      continue;
    }
    kept.push(line);
  }
  return kept.join("\n").replace(/`[^`\n]*`/g, "");
}

function firstHeading(code: string): string | undefined {
  const match = /^#[ \t]+(.+)$/m.exec(code);
  // The closing #s are trimmed from where their run starts (the look-behind): linear on any line.
  return match ? match[1]!.replace(/(?<![ \t#])[ \t#]+$/, "").trim() || undefined : undefined;
}

function tagsOf(fields: Record<string, unknown>, code: string): string[] {
  const raw = fields.tags ?? fields.tag;
  const declared = Array.isArray(raw) ? raw : typeof raw === "string" ? raw.split(/[,\s]+/) : [];
  const inline = [...code.matchAll(/(?:^|[\s(])#([\p{L}\p{N}_][\p{L}\p{N}_/-]*)/gu)]
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
      const same = this.byStem.get(key);
      if (same) same.push(id);
      else this.byStem.set(key, [id]);
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

function linksOf(fields: Record<string, unknown>, code: string, from: string, index: NoteIndex) {
  const links: { externalId: string; kind: string }[] = [];
  const seen = new Set<string>();
  const add = (externalId: string | undefined, kind: string) => {
    if (externalId && externalId !== from && !seen.has(externalId)) {
      seen.add(externalId);
      links.push({ externalId, kind });
    }
  };
  // No part of a link may hold `[` (Obsidian names cannot): a failed attempt stops at the next `[`, so a
  // line of `[[[[…` is read once, not once per bracket. The same for Markdown links' text and `(` targets.
  const wikilinks = /(!?)\[\[([^[\]|#^\n]*)(?:[#^][^[\]|\n]*)?(?:\|[^[\]\n]*)?\]\]/g;
  for (const value of JSON.stringify(fields).matchAll(wikilinks))
    add(index.wikilink(value[2]!, from), "property");
  for (const m of code.matchAll(wikilinks)) add(index.wikilink(m[2]!, from), m[1] ? "embed" : "link");
  for (const m of code.matchAll(/!?\[[^[\]\n]*\]\((<[^<>\n]+>|[^()\s]+)(?:\s+"[^"\n]*")?\)/g)) {
    add(index.relative(m[1]!, from), "link");
  }
  return links;
}

function toItem(file: MarkdownFile, id: string, index: NoteIndex): ImportEvent {
  const at = { file: file.path, position: "file" };
  const { fields, body, problem } = splitFrontMatter(stripBom(file.text).replace(/\r\n?/g, "\n"));
  const code = withoutCode(body);
  const title =
    storableText(
      (typeof fields.title === "string" && fields.title.trim()) || firstHeading(code) || stem(id),
      1000,
    ) ?? baseName(id);
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
  const links = linksOf(fields, code, id, index);
  const tags = tagsOf(fields, code);
  const text = boundedText(body.trim());
  const aliases = Array.isArray(fields.aliases) ? fields.aliases.filter((a) => typeof a === "string") : [];
  const item: ImportItem = {
    externalId: id,
    kind: "doc",
    title,
    body: text.text,
    occurredAt: when,
    metadata: {
      path: id,
      ...(text.truncated ? { truncated: true } : {}),
      ...(Object.keys(fields).length > 0 ? { frontMatter: fields } : {}),
      ...(tags.length > 0 ? { tags } : {}),
      ...(aliases.length > 0 ? { aliases } : {}),
      ...(problem ? { frontMatterProblem: problem } : {}),
      ...(links.length > MAX_LINKS ? { linksDropped: links.length - MAX_LINKS } : {}),
    },
    ...(links.length > 0 ? { links: links.slice(0, MAX_LINKS) } : {}),
  };
  const author = fields.author ?? fields.authors;
  const named =
    typeof author === "string" ? storableText(author.replace(/^\[\[|\]\]$/g, ""), 500) : undefined;
  if (named) item.author = named;
  return { type: "item", item, at };
}

/**
 * A folder of notes read one file at a time: built from every path in the folder (links resolve against
 * them), then given each file's text, so only the current note is held.
 */
export class MarkdownFolder {
  private readonly index: NoteIndex;
  private readonly seen = new Set<string>();

  constructor(paths: string[]) {
    this.index = new NoteIndex(paths.filter((p) => MARKDOWN_FILE.test(p)).map(noteId));
  }

  event(file: MarkdownFile): ImportEvent {
    const at = { file: file.path, position: "file" };
    if (!MARKDOWN_FILE.test(file.path)) return { type: "skipped", reason: "not a Markdown file", at };
    const id = noteId(file.path);
    if (this.seen.has(id.toLowerCase())) {
      const message = `another file has the same path once Notion ids are removed (${id})`;
      return { type: "error", message, at };
    }
    this.seen.add(id.toLowerCase());
    return toItem(file, id, this.index);
  }
}

export function* parseMarkdownFolder(files: MarkdownFile[]): Iterable<ImportEvent> {
  const folder = new MarkdownFolder(files.map((f) => f.path));
  for (const file of files) yield folder.event(file);
}
