// `npm run fuzz`: the fuzzing suite at length (test/fuzz.ts), on SQLite and PostgreSQL, each on a
// fresh database. FUZZ_RUNS requests per read route (default 100), ten times as many per write
// route (1,000 by default); FUZZ_SEED repeats a run. Prints its figures; exits 1 on any failure.
import { fuzzServer } from '../test/fuzz.ts';
import { startServer, testDialects } from '../test/harness.ts';

const runs = Number(process.env.FUZZ_RUNS ?? 100);
const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Date.now() % 1_000_000;
process.env.VOUCH_TEST_DIALECTS ??= 'sqlite,postgres';
let failed = false;
for (const dialect of testDialects()) {
  const server = await startServer({ dialect });
  const started = performance.now();
  try {
    const report = await fuzzServer(server, { runs, writeFactor: 10, seed });
    const seconds = ((performance.now() - started) / 1000).toFixed(0);
    console.log(
      `fuzz [${dialect}] seed ${seed}: ${report.operations} operations, ${report.requests} requests ` +
        `(${runs} per read route, ${runs * 10} per write route) in ${seconds} s, ` +
        `${report.failures.length} failures; by status ${JSON.stringify(report.byStatus)}`,
    );
    for (const failure of report.failures) console.log(`  ${failure}`);
    failed ||= report.failures.length > 0;
  } finally {
    await server.close();
  }
}
process.exit(failed ? 1 : 0);
