/**
 * Wall-clock times in a named zone → instants, for calendar files that name a zone without defining it
 * (no VTIMEZONE). Accepts IANA names, Windows names (Outlook, Exchange) and `/mozilla.org/…/Area/City`.
 * The Windows → IANA table holds the zones Microsoft clients emit most (CLDR windowsZones, territory 001).
 */

const WINDOWS_ZONES: Record<string, string> = {
  "Dateline Standard Time": "Etc/GMT+12",
  "Hawaiian Standard Time": "Pacific/Honolulu",
  "Alaskan Standard Time": "America/Anchorage",
  "Pacific Standard Time": "America/Los_Angeles",
  "US Mountain Standard Time": "America/Phoenix",
  "Mountain Standard Time": "America/Denver",
  "Central America Standard Time": "America/Guatemala",
  "Central Standard Time": "America/Chicago",
  "Central Standard Time (Mexico)": "America/Mexico_City",
  "Canada Central Standard Time": "America/Regina",
  "SA Pacific Standard Time": "America/Bogota",
  "Eastern Standard Time": "America/New_York",
  "US Eastern Standard Time": "America/Indianapolis",
  "Atlantic Standard Time": "America/Halifax",
  "SA Western Standard Time": "America/La_Paz",
  "Newfoundland Standard Time": "America/St_Johns",
  "E. South America Standard Time": "America/Sao_Paulo",
  "Argentina Standard Time": "America/Buenos_Aires",
  "Greenland Standard Time": "America/Godthab",
  UTC: "Etc/UTC",
  "Coordinated Universal Time": "Etc/UTC",
  "GMT Standard Time": "Europe/London",
  "Greenwich Standard Time": "Atlantic/Reykjavik",
  "W. Europe Standard Time": "Europe/Berlin",
  "Central Europe Standard Time": "Europe/Budapest",
  "Romance Standard Time": "Europe/Paris",
  "Central European Standard Time": "Europe/Warsaw",
  "W. Central Africa Standard Time": "Africa/Lagos",
  "GTB Standard Time": "Europe/Bucharest",
  "E. Europe Standard Time": "Europe/Chisinau",
  "Egypt Standard Time": "Africa/Cairo",
  "FLE Standard Time": "Europe/Kiev",
  "Israel Standard Time": "Asia/Jerusalem",
  "South Africa Standard Time": "Africa/Johannesburg",
  "Turkey Standard Time": "Europe/Istanbul",
  "Arabic Standard Time": "Asia/Baghdad",
  "Arab Standard Time": "Asia/Riyadh",
  "Russian Standard Time": "Europe/Moscow",
  "E. Africa Standard Time": "Africa/Nairobi",
  "Iran Standard Time": "Asia/Tehran",
  "Arabian Standard Time": "Asia/Dubai",
  "Afghanistan Standard Time": "Asia/Kabul",
  "Pakistan Standard Time": "Asia/Karachi",
  "India Standard Time": "Asia/Calcutta",
  "Sri Lanka Standard Time": "Asia/Colombo",
  "Nepal Standard Time": "Asia/Katmandu",
  "Bangladesh Standard Time": "Asia/Dhaka",
  "Myanmar Standard Time": "Asia/Rangoon",
  "SE Asia Standard Time": "Asia/Bangkok",
  "China Standard Time": "Asia/Shanghai",
  "Singapore Standard Time": "Asia/Singapore",
  "Taipei Standard Time": "Asia/Taipei",
  "W. Australia Standard Time": "Australia/Perth",
  "Korea Standard Time": "Asia/Seoul",
  "Tokyo Standard Time": "Asia/Tokyo",
  "Cen. Australia Standard Time": "Australia/Adelaide",
  "AUS Central Standard Time": "Australia/Darwin",
  "E. Australia Standard Time": "Australia/Brisbane",
  "AUS Eastern Standard Time": "Australia/Sydney",
  "Tasmania Standard Time": "Australia/Hobart",
  "New Zealand Standard Time": "Pacific/Auckland",
};

/** Outlook's display names, e.g. TZID="(UTC-05:00) Eastern Time (US and Canada)". */
const DISPLAY_NAMES: [RegExp, string][] = [
  [/Eastern Time \(US (&|and) Canada\)/i, "America/New_York"],
  [/Central Time \(US (&|and) Canada\)/i, "America/Chicago"],
  [/Mountain Time \(US (&|and) Canada\)/i, "America/Denver"],
  [/Pacific Time \(US (&|and) Canada\)/i, "America/Los_Angeles"],
  [/Dublin, Edinburgh, Lisbon, London/i, "Europe/London"],
  [/Amsterdam, Berlin, Bern, Rome, Stockholm, Vienna/i, "Europe/Berlin"],
  [/Brussels, Copenhagen, Madrid, Paris/i, "Europe/Paris"],
  [/Belgrade, Bratislava, Budapest, Ljubljana, Prague/i, "Europe/Budapest"],
  [/Sarajevo, Skopje, Warsaw, Zagreb/i, "Europe/Warsaw"],
  [/Helsinki, Kyiv|Helsinki, Kiev/i, "Europe/Kiev"],
  [/Chennai, Kolkata, Mumbai, New Delhi/i, "Asia/Calcutta"],
  [/Osaka, Sapporo, Tokyo/i, "Asia/Tokyo"],
  [/Beijing, Chongqing, Hong Kong, Urumqi/i, "Asia/Shanghai"],
  [/Canberra, Melbourne, Sydney/i, "Australia/Sydney"],
];

/** The IANA zone a TZID names, or undefined when it names none this runtime knows. */
export function ianaZone(tzid: string): string | undefined {
  const name = tzid.trim().replace(/^"|"$/g, "");
  const display = DISPLAY_NAMES.find(([pattern]) => pattern.test(name))?.[1];
  const candidates = [
    WINDOWS_ZONES[name],
    display,
    name,
    name.match(/([A-Za-z_]+\/[A-Za-z_+-]+(?:\/[A-Za-z_]+)?)$/)?.[1],
  ];
  for (const zone of candidates) {
    if (zone && isKnownZone(zone)) return zone;
  }
  return undefined;
}

function isKnownZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

export interface WallTime {
  year: number;
  month: number; // 1-12
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** The instant at which clocks in `zone` show `wall` (for a skipped hour, the instant one offset later). */
export function zonedInstant(wall: WallTime, zone: string): Date {
  const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
  // Two passes settle the offset across a DST change.
  let guess = asUtc - offsetMs(asUtc, zone);
  guess = asUtc - offsetMs(guess, zone);
  return new Date(guess);
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The zone's offset from UTC at `instant`, in ms. */
function offsetMs(instant: number, zone: string): number {
  let format = formatters.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formatters.set(zone, format);
  }
  const parts: Record<string, number> = {};
  for (const p of format.formatToParts(new Date(instant))) parts[p.type] = Number(p.value);
  const shown = Date.UTC(
    parts.year!,
    parts.month! - 1,
    parts.day!,
    parts.hour!,
    parts.minute!,
    parts.second!,
  );
  return shown - Math.floor(instant / 1000) * 1000;
}
