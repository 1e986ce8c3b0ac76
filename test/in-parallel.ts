/** `work(i)` for every i < count, `parallel` at a time; the results in order of i. */
export async function inParallel<T>(
  count: number,
  parallel: number,
  work: (i: number) => Promise<T>,
): Promise<T[]> {
  const out: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) {
        const i = next++;
        out[i] = await work(i);
      }
    }),
  );
  return out;
}
