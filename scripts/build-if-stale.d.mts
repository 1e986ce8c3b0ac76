/** Compiles src/ into dist/ unless dist/ is newer than every source file. */
export function buildIfStale(): Promise<{ built: boolean; ms: number }>;
