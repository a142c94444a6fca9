import type { EventStore } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

// A correct per-session EventStore for the clean scenario. The SDK's example
// InMemoryEventStore cannot resume the standalone GET stream: it finds an
// event's stream by splitting the id on '_', and that stream's id is
// '_GET_stream' (see the report in samples/sdk/README.md).

let issued = 0;

export class OrderedEventStore implements EventStore {
  private readonly events: { id: string; streamId: string; message: JSONRPCMessage }[] = [];

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    // Unique across every store in the process, as ids must be within a session.
    issued += 1;
    const id = `e${issued}`;
    this.events.push({ id, streamId, message });
    return id;
  }

  async replayEventsAfter(lastEventId: string, { send }: { send: (id: string, message: JSONRPCMessage) => Promise<void> }): Promise<string> {
    const at = this.events.findIndex((e) => e.id === lastEventId);
    const last = this.events[at];
    if (last === undefined) throw new Error(`unknown event id ${lastEventId}`);
    for (const e of this.events.slice(at + 1)) {
      if (e.streamId === last.streamId) await send(e.id, e.message);
    }
    return last.streamId;
  }
}
