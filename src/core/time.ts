/** The source of "now" for everything that stamps or schedules; tests inject their own. */
export interface Clock {
  /** Microseconds since the Unix epoch. */
  nowMicros(): number;
}

/** Milliseconds since the Unix epoch on `clock`: for timers and caches that should follow it. */
export const millisOn = (clock: Clock) => () => clock.nowMicros() / 1000;

export const systemClock: Clock = {
  nowMicros: () => Math.floor((performance.timeOrigin + performance.now()) * 1000),
};

/** `2025-04-30T16:44:13.123456Z`: the wire format and the stored format of every timestamp. */
export function formatTimestamp(micros: number): string {
  const millis = Math.floor(micros / 1000);
  const fraction = String(((micros % 1_000_000) + 1_000_000) % 1_000_000).padStart(6, '0');
  return `${new Date(millis).toISOString().slice(0, 19)}.${fraction}Z`;
}

export function nowTimestamp(clock: Clock): string {
  return formatTimestamp(clock.nowMicros());
}

/** The `YYYY-MM-DD` day a timestamp falls on (UTC). */
export function dayOf(timestamp: string): string {
  return timestamp.slice(0, 10);
}

export function addDays(day: string, days: number): string {
  const date = new Date(`${day}T00:00:00.000Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}

/** Parses a timestamp a client sent (any ISO 8601 form) into the stored format. */
export function normalizeTimestamp(input: string): string | undefined {
  const millis = Date.parse(input);
  if (Number.isNaN(millis)) return undefined;
  const micro = /\.\d{3}(\d{3})/.exec(input)?.[1] ?? '000';
  return formatTimestamp(millis * 1000 + Number(micro));
}
