/** Slack's message markup rendered as readable text: mentions by real name, channel names, link labels, entities. */

export interface SlackPerson {
  name: string;
  /** "Name <email>" when the export has the address, else the name. */
  display: string;
  /** The account: `T024BE7LD/U024BE7LH` (the team when users.json names it), for the item's `people`. */
  account?: string;
  email?: string;
  bot?: boolean;
}

export interface SlackDirectory {
  user(id: string): SlackPerson | undefined;
  channelName(id: string): string | undefined;
}

const SPECIAL: Record<string, string> = { here: "@here", channel: "@channel", everyone: "@everyone" };

function decodeEntities(text: string): string {
  return text.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
}

/** Renders one `<...>` token; `mentioned` collects the users named in it. */
function renderToken(inner: string, dir: SlackDirectory, mentioned: Set<string>): string {
  const bar = inner.indexOf("|");
  const target = bar < 0 ? inner : inner.slice(0, bar);
  const label = bar < 0 ? undefined : inner.slice(bar + 1);
  if (target.startsWith("@")) {
    const id = target.slice(1);
    const person = dir.user(id);
    if (person) mentioned.add(id);
    return `@${person?.name ?? label?.replace(/^@/, "") ?? "unknown user"}`;
  }
  if (target.startsWith("#")) {
    const name = dir.channelName(target.slice(1)) ?? label;
    return `#${name ?? "unknown channel"}`;
  }
  if (target.startsWith("!")) {
    const command = target.slice(1);
    if (SPECIAL[command]) return SPECIAL[command];
    if (command.startsWith("subteam^")) return label ?? "@group";
    return label ?? `@${command.split("^")[0]}`;
  }
  const url = decodeEntities(target);
  if (url.startsWith("mailto:")) return label ? decodeEntities(label) : url.slice("mailto:".length);
  if (!label || decodeEntities(label) === url) return url;
  return `${decodeEntities(label)} (${url})`;
}

/** The text with every Slack token rendered; the ids of users it mentions. */
export function renderSlackText(text: string, dir: SlackDirectory): { text: string; mentioned: string[] } {
  const mentioned = new Set<string>();
  const parts: string[] = [];
  let last = 0;
  for (const match of text.matchAll(/<([^<>\n]+)>/g)) {
    parts.push(decodeEntities(text.slice(last, match.index)));
    parts.push(renderToken(match[1]!, dir, mentioned));
    last = match.index + match[0].length;
  }
  parts.push(decodeEntities(text.slice(last)));
  return { text: parts.join(""), mentioned: [...mentioned] };
}
