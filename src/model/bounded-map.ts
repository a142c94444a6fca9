/**
 * A Map that forgets its oldest entries beyond `limit`: the instrumentation
 * lives as long as the server, and must not grow with its history; a report's
 * quoting remembers the last lines it read, not every one.
 */
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(private readonly limit: number) {
    super();
  }

  override set(key: K, value: V): this {
    if (!this.has(key) && this.size >= this.limit) {
      const oldest = this.keys().next();
      if (!oldest.done) this.delete(oldest.value);
    }
    return super.set(key, value);
  }
}
