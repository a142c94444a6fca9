// The engine keeps an incarnation's events in columns (event-log.ts). Over random
// emissions, it answers as the objects, Map and per-lane id lists it replaced
// did: each event's fields, whether its id was emitted again, a lane's replay after an event, a lane's size (lanes
// joined before and after their events too), every
// id in emission order, the highest digit id as numbers compare; counter ids rising, falling and repeated, and ids that
// only look like numbers ('007', '1e3', 2^53 + 1).

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EventLog } from '../../src/engine/event-log.js';
import type { EmittedEvent } from '../../src/engine/types.js';
import { compareNumeric, isDigits } from '../../src/model/event-order.js';

/** The representation EventLog replaced: an object per event, a Map by id, an id list per lane. */
class EventObjects {
  readonly events = new Map<string, EmittedEvent>();
  readonly lanes = new Map<string, string[]>();
  readonly repeated = new Set<string>();
  add(id: string, e: { lane: string; stream?: string; pos: number; tsMs: number; attached: boolean }): EmittedEvent {
    const ids = this.lanes.get(e.lane) ?? [];
    this.lanes.set(e.lane, ids);
    const event: EmittedEvent = { id, lane: e.lane, stream: e.stream, pos: e.pos, tsMs: e.tsMs, laneIndex: ids.length, attached: e.attached };
    ids.push(id);
    this.events.set(id, event);
    return event;
  }
  noteRequest(id: string, requestId: string): void {
    const event = this.events.get(id);
    if (event) event.requestId ??= requestId;
  }
  /** Lane `from` joins `to`: one list of both, in emission order, each event in its new place. */
  joinLane(from: string, to: string): void {
    if (from === to || !this.lanes.has(from)) return;
    const members = new Set([...this.lanes.get(from)!, ...(this.lanes.get(to) ?? [])]);
    const merged = [...this.events.keys()].filter((id) => members.has(id));
    this.lanes.delete(from);
    this.lanes.set(to, merged);
    merged.forEach((id, i) => Object.assign(this.events.get(id)!, { lane: to, laneIndex: i }));
  }
}

const ids = ['0', '1', '2', '3', '7', '9', '10', '11', '40', '007', '00', '1e3', ' 1', '-1', 'x', '999999999999999', '9007199254740992', '9007199254740993'];
const lanes = ['g1', 'g2', 'seq-A'];
const streams = ['g1', 'g2', 'p1'];

const step = fc.oneof(
  { weight: 5, arbitrary: fc.record({ op: fc.constant('emit' as const), id: fc.constantFrom(...ids), lane: fc.constantFrom(...lanes), stream: fc.option(fc.constantFrom(...streams), { nil: undefined }), tsMs: fc.integer({ min: 1_700_000_000_000, max: 1_800_000_000_000 }), attached: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('count' as const), by: fc.integer({ min: 1, max: 3 }), lane: fc.constantFrom(...lanes), stream: fc.option(fc.constantFrom(...streams), { nil: undefined }) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('request' as const), id: fc.constantFrom('1', '2', '3', 'x', '007'), requestId: fc.constantFrom('r1', 'r2') }) },
  // a lane joined to another (a resumption continued its stream), before or after its events
  { weight: 1, arbitrary: fc.record({ op: fc.constant('join' as const), from: fc.constantFrom(...lanes), to: fc.constantFrom(...lanes, 'g9') }) },
);

describe('EventLog', () => {
  it('answers every question as an object per event, a Map and per-lane lists do, after every step', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 50 }), (steps) => {
        const log = new EventLog();
        const objects = new EventObjects();
        let counter = 0;
        let pos = 0;
        for (const s of steps) {
          if (s.op === 'request') {
            log.noteRequest(s.id, s.requestId);
            objects.noteRequest(s.id, s.requestId);
          } else if (s.op === 'join') {
            if (s.from !== s.to) log.joinLane(s.from, s.to);
            objects.joinLane(s.from, s.to);
          } else {
            const id = s.op === 'count' ? String((counter += s.by)) : s.id;
            if (objects.events.has(id)) {
              // the engine records an id's first emission only, and that it was emitted again
              log.noteRepeat(id);
              objects.repeated.add(id);
              continue;
            }
            const e = { lane: s.lane, stream: s.stream, pos: pos++, tsMs: s.op === 'emit' ? s.tsMs : 1_750_000_000_000 + pos, attached: s.op === 'emit' ? s.attached : true };
            expect(log.add(id, e)).toEqual(objects.add(id, e));
          }
          expect(log.size).toBe(objects.events.size);
          expect([...log.keys()]).toEqual([...objects.events.keys()]);
          expect([...log.values()]).toEqual([...objects.events.values()]);
          for (const q of [...ids, '4', '5', '12', '41']) {
            const event = objects.events.get(q);
            expect(log.has(q), q).toBe(event !== undefined);
            expect(log.get(q), q).toEqual(event);
            expect(log.isRepeated(q), q).toBe(objects.repeated.has(q));
            if (event) expect(log.after(event), q).toEqual(objects.lanes.get(event.lane)!.slice(event.laneIndex + 1));
          }
          for (const lane of [...lanes, ...streams, 'g9', 'none']) expect(log.laneSize(lane), lane).toBe(objects.lanes.get(lane)?.length ?? 0);
          const digitIds = [...objects.events.keys()].filter(isDigits);
          const highest = log.highestDigitId();
          if (digitIds.length === 0) expect(highest).toBeUndefined();
          else {
            expect(digitIds).toContain(highest);
            for (const id of digitIds) expect(compareNumeric(id, highest!), `${id} above ${highest}`).toBeLessThanOrEqual(0);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('holds a session of a million counter ids, each found, with its lane replay', () => {
    const log = new EventLog();
    for (let i = 1; i <= 1_000_000; i++) log.add(String(i), { lane: `g${Math.ceil(i / 7)}`, stream: `g${Math.ceil(i / 7)}`, pos: i * 2, tsMs: 1_762_682_400_000 + i, attached: true });
    const event = log.get('700001')!;
    expect(event).toMatchObject({ id: '700001', lane: 'g100001', pos: 1_400_002, laneIndex: 0 });
    expect(log.after(event)).toEqual(['700002', '700003', '700004', '700005', '700006', '700007']);
    expect(log.get('1000001')).toBeUndefined();
    expect(log.get('0700001')).toBeUndefined();
  });

  it('stays data a caller can clone, as the rest of the state', () => {
    const log = new EventLog();
    log.add('1', { lane: 'g1', pos: 0, tsMs: 1, attached: true });
    log.add('x', { lane: 'g1', stream: 'g1', pos: 1, tsMs: 2, attached: false });
    expect(structuredClone(log)).toEqual(log);
  });
});
