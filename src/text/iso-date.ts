/** A calendar date written YYYY-MM-DD that exists (2024-02-30 does not), or undefined. */
export function isoDateOf(value: string): string | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value.trim());
  const date = m ? new Date(`${m[0]}T00:00:00Z`) : undefined;
  return m && date && !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === m[0] ? m[0] : undefined;
}
