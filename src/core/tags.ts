/** Tags of partners and affiliate customers: stored as a JSON array of strings, shown as `[{ value }]`. */

export function storedTags(tags: readonly string[]): string {
  return JSON.stringify(tags);
}

export function tagsOf(stored: string): { value: string }[] {
  const parsed: unknown = JSON.parse(stored || '[]');
  return Array.isArray(parsed) ? parsed.map((value) => ({ value: String(value) })) : [];
}
