import { addDays } from './time.ts';

/**
 * The calendar of reports (issue 26): which bucket a day falls in (a day, an ISO week starting
 * Monday, a month), every bucket of a range, and the local day of a stored UTC timestamp in a
 * program's time zone. Pure: the reports module reads rows and counters, this decides the dates.
 */
export type Interval = 'day' | 'week' | 'month';

export const INTERVALS: readonly Interval[] = ['day', 'week', 'month'];

/** At most three years of days in one range (1,096 days: one leap year included). */
export const MAX_RANGE_DAYS = 1096;

/** Default range: the last 30 days, today included. */
export const DEFAULT_RANGE_DAYS = 30;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Whether `text` is a real calendar date `YYYY-MM-DD` (not 2026-02-30). */
export function isCalendarDate(text: string): boolean {
  const match = DATE.exec(text);
  if (!match) return false;
  const date = new Date(`${text}T00:00:00.000Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === text;
}

/** Whole days from `from` to `to` (0 when equal; negative when `to` is earlier). */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

/** The first day of the bucket `day` falls in. */
export function bucketOf(day: string, interval: Interval): string {
  if (interval === 'day') return day;
  if (interval === 'month') return `${day.slice(0, 7)}-01`;
  // getUTCDay: Sunday 0 … Saturday 6; Monday starts the week.
  const weekday = new Date(`${day}T00:00:00Z`).getUTCDay();
  return addDays(day, -((weekday + 6) % 7));
}

/** Every bucket of `[start, end]`, oldest first: the first is the bucket `start` falls in. */
export function bucketsOf(start: string, end: string, interval: Interval): string[] {
  const first = bucketOf(start, interval);
  if (interval !== 'month') return everyNthDay(first, end, interval === 'day' ? 1 : 7);
  const buckets: string[] = [];
  for (let bucket = first; bucket <= end; bucket = nextMonth(bucket)) buckets.push(bucket);
  return buckets;
}

/**
 * The dates from `first` to `last` (inclusive) every `step` days, stepped as year, month and day
 * numbers: a Date and its `toISOString` per bucket cost ~0.5 µs, 200 µs of a year's daily series.
 */
function everyNthDay(first: string, last: string, step: number): string[] {
  const dates: string[] = [];
  let year = Number(first.slice(0, 4));
  let month = Number(first.slice(5, 7));
  let day = Number(first.slice(8, 10));
  let yearMonth = first.slice(0, 8);
  for (let date = first; date <= last; date = `${yearMonth}${TWO_DIGITS[day]}`) {
    dates.push(date);
    day += step;
    for (let length = monthLength(year, month); day > length; length = monthLength(year, month)) {
      day -= length;
      month += 1;
      if (month > 12) {
        month = 1;
        year += 1;
      }
      yearMonth = `${String(year).padStart(4, '0')}-${TWO_DIGITS[month]}-`;
    }
  }
  return dates;
}

const TWO_DIGITS = Array.from({ length: 32 }, (_, n) => String(n).padStart(2, '0'));

function monthLength(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

function nextMonth(bucket: string): string {
  const [year, month] = [Number(bucket.slice(0, 4)), Number(bucket.slice(5, 7))];
  return month === 12 ? `${year + 1}-01-01` : `${year}-${String(month + 1).padStart(2, '0')}-01`;
}

/** Whether `zone` is an IANA time zone name this runtime knows (`UTC`, `Europe/Berlin`). */
export function isTimeZone(zone: string): boolean {
  if (zone.length === 0 || zone.length > 64) return false;
  const known = knownZones.get(zone);
  if (known !== undefined) return known;
  let valid: boolean;
  try {
    new Intl.DateTimeFormat('en-CA', { timeZone: zone });
    valid = true;
  } catch {
    valid = false;
  }
  // A formatter costs tens of microseconds and every report asks again: answers are kept, a few
  // hundred at most (the zones' names are a fixed list; others are refused and seldom repeated).
  if (knownZones.size < 1_000) knownZones.set(zone, valid);
  return valid;
}
const knownZones = new Map<string, boolean>();

export const isUtc = (zone: string) => zone === 'UTC' || zone === 'Etc/UTC';

/**
 * How finely rows are grouped before they are put in local days: by UTC day when the zone is UTC,
 * by UTC hour when every offset of the zone is whole hours, by minute otherwise (India, Nepal).
 * The answer is the length of the prefix of a stored timestamp (`2026-11-02T10:15…`).
 */
export function groupingPrefix(zone: string, start: string, end: string): 10 | 13 | 16 {
  if (isUtc(zone)) return 10;
  const probes = [start, end, addDays(start, 182), addDays(start, 365)];
  const wholeHours = probes.every((day) => offsetMinutes(zone, Date.parse(`${day}T12:00:00Z`)) % 60 === 0);
  return wholeHours ? 13 : 16;
}

/** The zone's offset from UTC at an instant, in minutes. */
function offsetMinutes(zone: string, millis: number): number {
  const local = Date.parse(`${localDateTime(zone, millis)}Z`);
  return Math.round((local - Math.floor(millis / 60_000) * 60_000) / 60_000);
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** `YYYY-MM-DDTHH:MM` of an instant in a zone. */
function localDateTime(zone: string, millis: number): string {
  let format = formatters.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
    });
    formatters.set(zone, format);
  }
  const parts: Record<string, string> = {};
  for (const part of format.formatToParts(millis)) parts[part.type] = part.value;
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}`;
}

/**
 * A function from a stored timestamp's prefix (`groupingPrefix` long) to the local day it falls
 * on in `zone`; answers are cached (a year has 8,760 hours).
 */
export function localDayOfPrefix(zone: string): (prefix: string) => string {
  if (isUtc(zone)) return (prefix) => prefix.slice(0, 10);
  const cache = new Map<string, string>();
  return (prefix) => {
    let day = cache.get(prefix);
    if (day === undefined) {
      const iso = prefix.length === 10 ? `${prefix}T00:00` : prefix.length === 13 ? `${prefix}:00` : prefix;
      day = localDateTime(zone, Date.parse(`${iso}:00Z`)).slice(0, 10);
      cache.set(prefix, day);
    }
    return day;
  };
}

/**
 * The UTC instants that bound the local days `[start, end]` in `zone`, widened by a day on each
 * side: rows are read in this window and then put in local days, so none at a boundary is missed.
 */
export function utcWindow(start: string, end: string): { from: string; until: string } {
  return { from: `${addDays(start, -1)}T00:00:00`, until: `${addDays(end, 2)}T00:00:00` };
}

/** The local date today in `zone`. */
export function todayIn(zone: string, nowMillis: number): string {
  return localDateTime(zone, nowMillis).slice(0, 10);
}

/**
 * The UTC instant local midnight starting `day` is in `zone`, as a prefix of the stored format
 * (`2026-11-01T23:00:00`): rows at or after it compare greater. The offset is read twice, the second
 * time at the first answer, so a day that starts next to a DST change gets its own offset.
 */
export function localMidnightUtc(zone: string, day: string): string {
  const midnight = Date.parse(`${day}T00:00:00Z`);
  let instant = midnight - offsetMinutes(zone, midnight) * 60_000;
  instant = midnight - offsetMinutes(zone, instant) * 60_000;
  return new Date(instant).toISOString().slice(0, 19);
}
