/** Deletes a map's oldest entry (maps keep insertion order): how the bounded caches evict. */
export function deleteOldest<K, V>(map: Map<K, V>): void {
  const oldest = map.keys().next();
  if (!oldest.done) map.delete(oldest.value);
}
