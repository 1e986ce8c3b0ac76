/** Compiles src/ into dist/ unless dist/ is newer than every source file. */
export function buildIfStale(): Promise<{ built: boolean; ms: number }>;

/** Waits while another process holds the build lock. */
export function waitForBuild(): Promise<void>;
