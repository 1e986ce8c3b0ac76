import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fuzzServer } from './fuzz.ts';
import { describeEachDatabase } from './harness.ts';

/** A few fuzzed requests per route inside `npm test`; `npm run fuzz` runs thousands. */
const RUNS = Number(process.env.VOUCH_FUZZ_RUNS ?? 4);

describeEachDatabase('fuzzing from /openapi.json', (server, dialect) => {
  test(`${RUNS} requests per route: never a 5xx, always the documented shape, no injected state`, async () => {
    const report = await fuzzServer(server(), { runs: RUNS, seed: 9 });
    console.log(
      `fuzz [${dialect}]: ${report.operations} operations, ${report.requests} requests, ` +
        `${report.failures.length} failures, by status ${JSON.stringify(report.byStatus)}`,
    );
    assert.ok(report.operations > 50);
    assert.deepEqual(report.failures, []);
  });
});
