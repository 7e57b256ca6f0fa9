/**
 * What the receiving mail server found out about a message (RFC 8601 `Authentication-Results`: SPF, DKIM,
 * DMARC), and whether that verifies its `From`. Only the topmost such header counts: it is the one the
 * last hop (Cloudflare's mail servers) prepended; any below it came with the message and could be forged
 * by its sender.
 */

export interface HeaderField {
  name: string;
  value: string;
}

/** The longest header block read; a message whose headers run longer is read up to here. */
const MAX_HEADER_BYTES = 256 * 1024;

/** The header fields of a raw RFC 5322 message, unfolded, in order (names lower case). */
export function headerFields(raw: Uint8Array): HeaderField[] {
  const head = new TextDecoder("utf-8").decode(raw.subarray(0, MAX_HEADER_BYTES));
  const end = /\r?\n\r?\n/.exec(head);
  const block = end ? head.slice(0, end.index) : head;
  const fields: HeaderField[] = [];
  for (const line of block.split(/\r?\n/)) {
    const last = fields.at(-1);
    if (/^[ \t]/.test(line) && last) {
      last.value += ` ${line.trim()}`;
      continue;
    }
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    fields.push({ name: line.slice(0, colon).trim().toLowerCase(), value: line.slice(colon + 1).trim() });
  }
  return fields;
}

export interface AuthenticationResults {
  /** Who made the checks (e.g. mx.cloudflare.net). */
  authservId: string;
  spf: { result: string; mailFrom?: string } | null;
  dkim: { result: string; domain?: string }[];
  dmarc: { result: string; headerFrom?: string } | null;
}

/** The topmost Authentication-Results of the message, parsed; null when it has none. */
export function authenticationResults(fields: readonly HeaderField[]): AuthenticationResults | null {
  const header = fields.find((f) => f.name === "authentication-results");
  return header ? parseAuthenticationResults(header.value) : null;
}

/** `mx.example; spf=pass smtp.mailfrom=a@b.c; dkim=pass header.d=b.c (comment); dmarc=pass header.from=b.c` */
export function parseAuthenticationResults(value: string): AuthenticationResults | null {
  const [authserv, ...results] = splitOutsideQuotes(withoutComments(value), ";");
  const authservId = authserv?.trim().split(/\s+/)[0] ?? "";
  if (authservId === "") return null;
  const parsed: AuthenticationResults = { authservId, spf: null, dkim: [], dmarc: null };
  for (const resinfo of results) {
    const [head, ...props] = resinfo.trim().split(/\s+/);
    const verdict = /^([a-z0-9_-]+)(?:\/\d+)?=([a-z]+)$/i.exec(head ?? "");
    if (!verdict) continue;
    const method = verdict[1]!.toLowerCase();
    const result = verdict[2]!.toLowerCase();
    const prop = (name: string) => {
      const found = props.find((p) => p.toLowerCase().startsWith(`${name}=`));
      return found ? found.slice(name.length + 1).replace(/^"|"$/g, "") : undefined;
    };
    if (method === "spf" && !parsed.spf) {
      parsed.spf = defined({ result, mailFrom: prop("smtp.mailfrom") });
    } else if (method === "dkim") {
      const identity = prop("header.d") ?? prop("header.i");
      parsed.dkim.push(defined({ result, domain: identity?.slice(identity.lastIndexOf("@") + 1) }));
    } else if (method === "dmarc" && !parsed.dmarc) {
      parsed.dmarc = defined({ result, headerFrom: prop("header.from") });
    }
  }
  return parsed;
}

/**
 * Verified: DMARC passed for the From domain, or a DKIM signature or SPF passed for a domain aligned with
 * it (the same domain, or one a subdomain of the other). Anything else, a missing header included, is not.
 */
export function fromVerified(
  results: AuthenticationResults | null,
  fromAddress: string | undefined,
): boolean {
  const fromDomain = domainOf(fromAddress);
  if (!results || !fromDomain) return false;
  const aligned = (domain: string | undefined) => {
    const d = domainOf(domain) ?? domain?.toLowerCase();
    return (
      d !== undefined && (d === fromDomain || d.endsWith(`.${fromDomain}`) || fromDomain.endsWith(`.${d}`))
    );
  };
  if (
    results.dmarc?.result === "pass" &&
    (results.dmarc.headerFrom === undefined || aligned(results.dmarc.headerFrom))
  ) {
    return true;
  }
  if (results.dkim.some((d) => d.result === "pass" && aligned(d.domain))) return true;
  return results.spf?.result === "pass" && aligned(results.spf.mailFrom);
}

/** The address in `Name <a@b.c>` or a bare `a@b.c`. */
export function addressOf(mailbox: string | undefined): string | undefined {
  if (!mailbox) return undefined;
  const bracketed = /<([^<>]+)>\s*$/.exec(mailbox);
  const address = (bracketed ? bracketed[1]! : mailbox).trim();
  return address.includes("@") ? address : undefined;
}

function domainOf(address: string | undefined): string | undefined {
  if (!address?.includes("@")) return undefined;
  const domain = address.slice(address.lastIndexOf("@") + 1).toLowerCase();
  return domain === "" ? undefined : domain;
}

function withoutComments(value: string): string {
  let depth = 0;
  let out = "";
  let quoted = false;
  for (const ch of value) {
    if (ch === '"' && depth === 0) quoted = !quoted;
    if (!quoted && ch === "(") depth++;
    else if (!quoted && ch === ")" && depth > 0) depth--;
    else if (depth === 0) out += ch;
  }
  return out;
}

function splitOutsideQuotes(value: string, separator: string): string[] {
  const parts: string[] = [];
  let current = "";
  let quoted = false;
  for (const ch of value) {
    if (ch === '"') quoted = !quoted;
    if (ch === separator && !quoted) {
      parts.push(current);
      current = "";
    } else current += ch;
  }
  parts.push(current);
  return parts;
}

/** Drops undefined properties (the metadata is stored as JSON). */
function defined<T extends Record<string, unknown>>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** What an inbound message's item carries in `metadata.inbound`. */
export interface InboundMetadata {
  /** The envelope sender (SMTP MAIL FROM) as Cloudflare handed it over. */
  envelopeFrom: string;
  receivedAt: string;
  authentication: AuthenticationResults | null;
  /** Whether the message's From is vouched for by the receiving server's checks (fromVerified above). */
  fromVerified: boolean;
  /** sha-256 of the message's content, to tell a re-delivery from another message with the same id. */
  fingerprint: string;
  /** Set when another message with the same Message-ID was stored first (this one has a suffixed id). */
  sameMessageIdAs?: string;
}

/** The `From verified` flag of an item received by email; undefined for any other item. */
export function fromVerifiedOf(metadata: Record<string, unknown>): boolean | undefined {
  const inbound = metadata.inbound;
  if (typeof inbound !== "object" || inbound === null) return undefined;
  const verified = (inbound as Record<string, unknown>).fromVerified;
  return typeof verified === "boolean" ? verified : undefined;
}
