// The trim index answers "did any logged trim take this event?" from bounds;
// retention.ts's trimTakes is the definition, one trim at a time. Over random
// logs (trims before and after the ids they name are emitted, streams that
// learn their sequence after being trimmed, lanes joined by resumptions before
// and after their trims, digit and other ids) the two agree
// for every event after every record.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createState, observe, resolvePolicy, type EngineRecord } from '../../src/engine/index.js';
import { isEventRetained, trimTakes } from '../../src/engine/retention.js';

const streams = ['g1', 'g2', 'p1', 'p2'];
const ids = ['1', '2', '3', '5', '8', '13', '21', '100', 'a', 'b7'];

const record = fc.oneof(
  fc.record({ kind: fc.constant('event.sent'), stream: fc.constantFrom(...streams), eventId: fc.constantFrom(...ids), sequence: fc.option(fc.constantFrom('L1', 'L2', 'g1', 'g2'), { nil: undefined }) }),
  fc.record({ kind: fc.constant('buffer.trimmed'), stream: fc.option(fc.constantFrom(...streams, 'L1'), { nil: undefined }), oldestRetained: fc.constantFrom(...ids) }),
  fc.record({ kind: fc.constant('stream.opened'), stream: fc.constantFrom(...streams), sequence: fc.option(fc.constantFrom('L1', 'L2', 'g2'), { nil: undefined }) }),
  // an accepted resume joins its new stream's lane to the resumed one's; an attach does not
  fc.record({
    kind: fc.constant('upgrade'), decision: fc.constantFrom('resume', 'attach'), status: fc.constant(200), lastEventId: fc.constantFrom(...ids),
    stream: fc.option(fc.constantFrom(...streams), { nil: undefined }), newStream: fc.constantFrom(...streams, 'u1', 'u2'),
  }),
);

const asLogged = resolvePolicy({});

describe('trim index', () => {
  it('takes exactly the events some logged trim takes, after every record', () => {
    fc.assert(
      fc.property(fc.array(record, { maxLength: 40 }), fc.boolean(), (drawn, created) => {
        const state = createState();
        const log: EngineRecord[] = [...(created ? [{ kind: 'session.created', session: 'S1' }] : []), ...drawn].map((r, i) => ({ session: 'S1', tsMs: i, ...r }));
        for (const r of log) {
          observe(state, r);
          for (const inc of state.incarnations) {
            for (const event of inc.events.values()) {
              const byDefinition = inc.trims.some((t) => trimTakes(inc, t, event));
              expect(isEventRetained(inc, event, 0, asLogged)).toBe(!byDefinition);
            }
          }
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('reads a trim logged before its oldest id is emitted once that id is emitted', () => {
    const state = createState();
    const log: EngineRecord[] = [
      { kind: 'session.created', session: 'S1', tsMs: 0 },
      { kind: 'event.sent', session: 'S1', stream: 'g1', eventId: 'x', tsMs: 1 },
      { kind: 'buffer.trimmed', session: 'S1', oldestRetained: 'y', tsMs: 2 },
    ];
    for (const r of log) observe(state, r);
    const inc = state.incarnations[0]!;
    expect(isEventRetained(inc, inc.events.get('x')!, 3, asLogged)).toBe(true);
    observe(state, { kind: 'event.sent', session: 'S1', stream: 'g1', eventId: 'y', tsMs: 3 });
    expect(isEventRetained(inc, inc.events.get('x')!, 4, asLogged)).toBe(false);
    expect(isEventRetained(inc, inc.events.get('y')!, 4, asLogged)).toBe(true);
  });
});
