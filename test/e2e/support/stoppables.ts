/** Everything a scenario starts, so that afterAll stops it even when the scenario failed halfway. */
export class Stoppables {
  private readonly stops: (() => unknown)[] = [];

  add<T>(thing: T, stop: (thing: T) => unknown): T {
    this.stops.push(() => stop(thing));
    return thing;
  }

  async stopAll(): Promise<void> {
    for (const stop of this.stops.splice(0).reverse()) {
      try {
        await stop();
      } catch {
        // Already stopped.
      }
    }
  }
}
