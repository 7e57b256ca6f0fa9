/**
 * iCalendar (RFC 5545) → one `event` item per VEVENT (ical.js parses). A recurring series is one item whose
 * body states its rule; each moved or changed instance (RECURRENCE-ID) is its own item linked to the series.
 * Times resolve through the file's VTIMEZONEs, else through the TZID as an IANA or Windows zone name.
 * One malformed event is reported and skipped; the others still import.
 */
import ICAL from "ical.js";
import { type ItemPerson, keepValid, MAX_ITEM_PEOPLE, MAX_PERSON_NAME } from "../domain/people/model";
import type { ImportEvent, ImportItem } from "./records";
import { boundedText, storableText } from "./text";
import { ianaZone, zonedInstant } from "./time-zones";

type Component = InstanceType<typeof ICAL.Component>;
type Time = InstanceType<typeof ICAL.Time>;

export function* parseIcs(file: { path: string; text: string }): Iterable<ImportEvent> {
  const calendars = parseCalendars(file.text);
  if (calendars.ok) {
    let index = 0;
    for (const calendar of calendars.components) {
      for (const vevent of calendar.getAllSubcomponents("vevent"))
        yield eventFrom(vevent, file.path, ++index);
    }
    if (index === 0)
      yield { type: "skipped", reason: "calendar without events", at: { file: file.path, position: "file" } };
    return;
  }
  // The file as a whole does not parse: parse each VEVENT alone, with the file's time zones beside it.
  const { blocks, unterminated } = blocksOf(file.text, "VEVENT");
  if (blocks.length === 0 && unterminated === 0) {
    yield {
      type: "error",
      message: `not an iCalendar file: ${calendars.error}`,
      at: { file: file.path, position: "file" },
    };
    return;
  }
  const zones = blocksOf(file.text, "VTIMEZONE").blocks.join("\r\n");
  let index = 0;
  for (const block of blocks) {
    index++;
    const single = parseCalendars(
      `BEGIN:VCALENDAR\r\nVERSION:2.0\r\n${zones}\r\n${block}\r\nEND:VCALENDAR\r\n`,
    );
    const vevent = single.ok ? single.components[0]?.getFirstSubcomponent("vevent") : null;
    if (!vevent) {
      const reason = single.ok ? "no event" : single.error;
      yield {
        type: "error",
        message: `malformed event: ${reason}`,
        at: { file: file.path, position: `event ${index}` },
      };
    } else yield eventFrom(vevent, file.path, index);
  }
  if (unterminated > 0)
    yield {
      type: "error",
      message: "event without END:VEVENT",
      at: { file: file.path, position: `event ${index + 1}` },
    };
}

/**
 * The `BEGIN:<name>` … `END:<name>` blocks of a file, found line by line (linear: a file of many BEGIN lines
 * and no END is read once); `unterminated` counts a block the file ends inside.
 */
function blocksOf(text: string, name: string): { blocks: string[]; unterminated: number } {
  const begin = `BEGIN:${name}`;
  const end = `END:${name}`;
  const blocks: string[] = [];
  let start = -1;
  const lines = /[^\r\n]*(?:\r\n|\n|\r|$)/g;
  for (let m = lines.exec(text); m && m[0] !== ""; m = lines.exec(text)) {
    const line = m[0].length <= begin.length + 8 ? m[0].trimEnd().toUpperCase() : "";
    if (start === -1 && line === begin) start = m.index;
    else if (start !== -1 && line === end) {
      blocks.push(text.slice(start, m.index + m[0].trimEnd().length));
      start = -1;
    }
  }
  return { blocks, unterminated: start === -1 ? 0 : 1 };
}

function parseCalendars(text: string): { ok: true; components: Component[] } | { ok: false; error: string } {
  try {
    const jcal = ICAL.parse(text.replace(/^\uFEFF/, ""));
    const list = (Array.isArray(jcal[0]) ? jcal : [jcal]) as unknown[];
    return { ok: true, components: list.map((j) => new ICAL.Component(j as never)) };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

function eventFrom(vevent: Component, file: string, index: number): ImportEvent {
  const at = { file, position: `event ${index}` };
  try {
    const item = eventItem(vevent);
    return typeof item === "string" ? { type: "error", message: item, at } : { type: "item", item, at };
  } catch (error) {
    return {
      type: "error",
      message: `malformed event: ${error instanceof Error ? error.message : String(error)}`,
      at,
    };
  }
}

function eventItem(vevent: Component): ImportItem | string {
  const event = new ICAL.Event(vevent);
  const startProp = vevent.getFirstProperty("dtstart");
  if (!startProp) return "event without DTSTART";
  const start = instant(event.startDate, startProp.getParameter("tzid"));
  const end =
    vevent.hasProperty("dtend") || vevent.hasProperty("duration")
      ? instant(
          event.endDate,
          vevent.getFirstProperty("dtend")?.getParameter("tzid") ?? startProp.getParameter("tzid"),
        )
      : undefined;
  const allDay = event.startDate.isDate;
  const uid = text(vevent.getFirstPropertyValue("uid"));
  const recurrenceId = event.recurrenceId
    ? instant(event.recurrenceId, vevent.getFirstProperty("recurrence-id")?.getParameter("tzid"))
    : undefined;
  const series = uid ?? `nouid:${start}:${event.summary ?? ""}`.slice(0, 400);
  const externalId = recurrenceId ? `${series}#${recurrenceId}` : series;
  const rule = vevent.getFirstPropertyValue("rrule");
  const rrule = rule ? String(rule) : undefined;
  const exdates = vevent
    .getAllProperties("exdate")
    .flatMap((p) => p.getValues().map((v) => instant(v as Time, p.getParameter("tzid"))));
  const location = text(event.location);
  const organizer = person(vevent.getFirstProperty("organizer"));
  const attendees = vevent
    .getAllProperties("attendee")
    .map(person)
    .filter((p): p is string => Boolean(p));
  const status = text(vevent.getFirstPropertyValue("status"));
  const tzid = startProp.getParameter("tzid");

  const lines = [
    `When: ${allDay ? start.slice(0, 10) : start}${end ? ` – ${allDay ? end.slice(0, 10) : end}` : ""}${tzid ? ` (${tzid})` : ""}`,
  ];
  if (location) lines.push(`Where: ${location}`);
  if (rrule) lines.push(`Repeats: ${describeRule(rrule)} (${rrule})`);
  if (exdates.length > 0) lines.push(`Except: ${exdates.join(", ")}`);
  if (recurrenceId) lines.push(`Changed instance of the series, originally at ${recurrenceId}`);
  if (status) lines.push(`Status: ${status}`);
  if (attendees.length > 0) lines.push(`Attendees: ${attendees.join(", ")}`);
  const description = text(event.description);
  if (description) lines.push("", description);

  const metadata: Record<string, unknown> = { start, allDay };
  if (end) metadata.end = end;
  if (tzid) metadata.timeZone = tzid;
  if (location) metadata.location = storableText(location, 2000);
  if (rrule) metadata.rrule = rrule;
  if (exdates.length > 0) metadata.exdates = exdates;
  if (recurrenceId) metadata.recurrenceId = recurrenceId;
  if (status) metadata.status = status;

  const item: ImportItem = {
    externalId,
    kind: "event",
    body: boundedText(lines.join("\n")).text,
    occurredAt: start,
    metadata,
  };
  const summary = storableText(text(event.summary), 1000);
  if (summary) item.title = summary;
  if (organizer) item.author = organizer;
  const distinct = [...new Set(attendees)];
  if (distinct.length > 0) item.participants = distinct.slice(0, 500);
  if (distinct.length > 500) metadata.attendeeCount = distinct.length;
  const people = calendarPeople(vevent);
  if (people.length > 0) item.people = people;
  const url = text(vevent.getFirstPropertyValue("url"));
  if (url && /^https?:\/\//i.test(url)) item.url = url;
  if (recurrenceId) item.links = [{ externalId: series, kind: "instance_of" }];
  return item;
}

/** The instant of an ical.js time: its own zone when the file defined it, else the TZID as a known zone name. */
function instant(time: Time, tzid: string | string[] | undefined): string {
  if (time.isDate) return new Date(Date.UTC(time.year, time.month - 1, time.day)).toISOString();
  const zoneId = time.zone?.tzid;
  const defined = zoneId && zoneId !== "floating";
  const named = typeof tzid === "string" ? tzid : undefined;
  if (!defined && named) {
    const zone = ianaZone(named);
    if (!zone) throw new Error(`unknown time zone "${named}"`);
    return zonedInstant(time, zone).toISOString();
  }
  // Defined zones and UTC convert exactly; a floating time (no zone at all) is read as UTC.
  if (!defined)
    return new Date(
      Date.UTC(time.year, time.month - 1, time.day, time.hour, time.minute, time.second),
    ).toISOString();
  return time.toJSDate().toISOString();
}

function person(prop: InstanceType<typeof ICAL.Property> | null): string | undefined {
  if (!prop) return undefined;
  const address = String(prop.getFirstValue() ?? "")
    .replace(/^mailto:/i, "")
    .trim();
  const cn = prop.getParameter("cn");
  const name = typeof cn === "string" ? cn.trim() : "";
  const full = name && address && name !== address ? `${name} <${address}>` : name || address;
  return storableText(full.length <= 500 ? full : address || full, 500);
}

/** The organiser and the attendees by their CN and mailto address (a non-mail URI keeps only the CN). */
function calendarPeople(vevent: Component): ItemPerson[] {
  const out: ItemPerson[] = [];
  const seen = new Set<string>();
  const props: [ItemPerson["role"], InstanceType<typeof ICAL.Property>][] = [
    ...vevent.getAllProperties("organizer").map((p) => ["organizer", p] as [ItemPerson["role"], typeof p]),
    ...vevent.getAllProperties("attendee").map((p) => ["attendee", p] as [ItemPerson["role"], typeof p]),
  ];
  for (const [role, prop] of props) {
    if (out.length >= MAX_ITEM_PEOPLE) break;
    const value = String(prop.getFirstValue() ?? "").trim();
    const mailto = /^mailto:/i.test(value) || /^[^\s:@]+@[^\s@]+$/.test(value);
    const address = mailto ? storableText(value.replace(/^mailto:/i, ""), 1000)?.toLowerCase() : undefined;
    const cn = prop.getParameter("cn");
    const name = typeof cn === "string" ? storableText(cn, MAX_PERSON_NAME) : undefined;
    if (!address && !name) continue;
    const marker = address ?? `name:${name}`;
    if (seen.has(marker)) continue;
    seen.add(marker);
    out.push({ role, ...(name ? { name } : {}), ...(address ? { email: address } : {}) });
  }
  return out.flatMap((p) => keepValid(p) ?? []);
}

const FREQUENCIES: Record<string, string> = {
  DAILY: "daily",
  WEEKLY: "weekly",
  MONTHLY: "monthly",
  YEARLY: "yearly",
  HOURLY: "hourly",
};

/** `FREQ=WEEKLY;BYDAY=MO,WE;UNTIL=…` → "weekly on MO, WE until …". */
function describeRule(rrule: string): string {
  const parts = Object.fromEntries(rrule.split(";").map((p) => p.split("=") as [string, string]));
  const every = Number(parts.INTERVAL ?? 1) > 1 ? `every ${parts.INTERVAL} ` : "";
  let text = `${every}${FREQUENCIES[parts.FREQ ?? ""] ?? (parts.FREQ ?? "").toLowerCase()}`;
  if (parts.BYDAY) text += ` on ${parts.BYDAY.split(",").join(", ")}`;
  if (parts.BYMONTHDAY) text += ` on day ${parts.BYMONTHDAY}`;
  if (parts.COUNT) text += `, ${parts.COUNT} times`;
  if (parts.UNTIL) text += ` until ${parts.UNTIL}`;
  return text;
}

function text(value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined;
  const s = String(value).replaceAll("\u0000", "").trim();
  return s || undefined;
}
