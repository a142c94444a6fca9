import strandedResponse from '../detect/rules/stranded-response.js'; // until the rule-module index lands
import type { RuleId } from '../model/rules.js';

/**
 * What each rule means for an on-call engineer. docs/rules.md carries the same
 * three texts per rule (a test keeps them equal); edit both together.
 */
export interface RuleExplanation {
  /** What the finding says happened, in plain words. */
  meaning: string;
  /** Why it breaks the boundary: an event id is a position within one stream, a session id an identity across streams. */
  whyItBreaks: string;
  /** What a correct server does instead. */
  shouldHave: string;
}

export const EXPLANATIONS: Record<RuleId, RuleExplanation> = {
  'silent-truncation': {
    meaning:
      'The server accepted a stream resumption (2xx to a Last-Event-ID) although the replay cannot have been complete: the event named by Last-Event-ID was no longer in the buffer, fewer events were replayed than the stream had sent after it, or the replay started later than the event sent right after it.',
    whyItBreaks:
      'Last-Event-ID asks for every event after one position in one stream, and a 2xx resume promises the client a continuous stream. The events it never got (a capability change, a server request) are lost without a trace, and the client goes on acting on state it never saw.',
    shouldHave:
      'Resume only while the position is still retained, and replay everything after it. When the window has been evicted, reject with 409 resumption_unavailable, or start a fresh session with a new Mcp-Session-Id and a session_reset as the first frame. Never replay from the oldest retained event as if nothing was missing.',
  },
  'phantom-event-id': {
    meaning:
      'A resumption was accepted for a Last-Event-ID that no stream of any session in the log ever emitted (judged where the log covers the session from its creation), or for a numeric id above every id the session emitted.',
    whyItBreaks:
      'An event id is a position in a stream the server wrote. An id the server never emitted is no position at all: the client holds a cursor from another incarnation or another server, and whatever is replayed is not the continuation it asked for.',
    shouldHave:
      'Look the id up in the buffer of the stream that emitted it and reject the resumption (409 resumption_unavailable, or 404 when the session is unknown) when it is not there. Never resume from an id the server cannot place.',
  },
  'foreign-event-id': {
    meaning:
      'A resumption was accepted although its Last-Event-ID, or an event replayed on it, belongs to another session, another incarnation of the session id, or another stream than the one resumed: the server replayed from a global or cross-stream log.',
    whyItBreaks:
      'Last-Event-ID is a position within one stream of one session and means nothing outside it. Replaying events of another stream or session delivers messages about state the client never had, and its answers to them reach request ids the server no longer knows (404, then retries).',
    shouldHave:
      'Scope the lookup to the presented session and to the stream that emitted the id, and reject a Last-Event-ID that does not belong to them with a distinct resumption error instead of falling back to a global log.',
  },
  'event-id-without-session': {
    meaning: 'A request carried Last-Event-ID but no Mcp-Session-Id, and the server accepted it.',
    whyItBreaks:
      'An event id is a position within a stream, and every stream belongs to a session. Without the session id there is nothing to scope the position to, so any replay comes from a global log, possibly from another client.',
    shouldHave: 'Reject a Last-Event-ID that arrives without Mcp-Session-Id (400 or 404), so that the client initializes a session first.',
  },
  'event-id-regression': {
    meaning:
      'One event id was emitted twice under one session id, or a resumption replayed events at or before its own Last-Event-ID: the event sequence restarted.',
    whyItBreaks:
      'Event ids must be unique across all streams of a session, or a position means nothing. A restarted sequence is the mark of a fork: a new session or a reset buffer answering under the old session id, whose events the client deduplicates against ids it has already seen and silently drops.',
    shouldHave:
      'Never reuse an event id within a session, and replay strictly after Last-Event-ID. When the session state was lost, answer 404 so that the client re-initializes, or mint a new session id and signal the reset.',
  },
  'resume-after-end': {
    meaning: 'A resume or attach was accepted for a session id that the log shows terminated or evicted earlier.',
    whyItBreaks:
      'A session id is an identity that ends with its session. A terminated session is no resumption source even if its event log remains: its negotiated capabilities and pending requests are gone, so the client carries on a conversation the server has already closed.',
    shouldHave: 'Answer 404 (or 410) to every request that presents a terminated or evicted session id, so that the client re-initializes.',
  },
  'resume-across-state-change': {
    meaning:
      'A resumption was accepted although session state (capabilities, subscriptions, auth scope) changed after the event named by Last-Event-ID and before the reconnect.',
    whyItBreaks:
      "Replay restores one stream's events, not the session's state. When capabilities, subscriptions or scope changed inside the replay window, what the client knew before the disconnect no longer holds, and the replayed events land on top of a state that is gone.",
    shouldHave:
      'Refuse the resumption (409 resumption_unavailable), or start a fresh session with an explicit reset, so that the client negotiates again.',
  },
  'silent-fork': {
    meaning:
      'A request presenting a session id that is unknown (never created, already ended, or created only on another node without a shared session store) got 2xx and a session instead of 404 or 410, without both a new distinct session id and a reset signal.',
    whyItBreaks:
      'The session id is the identity across streams. Serving an unknown id with a new session under the old identity forks it: the client believes it continues the old session, the new event ids collide with ids it has seen, and its deduplication drops real results.',
    shouldHave:
      'Return 404 for an unknown or ended session id so that the client re-initializes; a server that serves anyway must mint a new distinct Mcp-Session-Id and send a session_reset as the first frame.',
  },
  'silent-reset': {
    meaning:
      'A live session presented a Last-Event-ID that could not be resumed, and the server served the request as fresh without a new distinct session id and a reset signal.',
    whyItBreaks:
      'The client sent a stream position and got a 2xx stream back, so it believes the stream is continuous, while the server started over. The gap between its position and the new stream is invisible to it.',
    shouldHave:
      'Reject with 409 resumption_unavailable, or mint a new session id and send a session_reset as the first frame, so that the client knows it must resynchronize.',
  },
  'session-id-reuse': {
    meaning: 'One session id string was created twice: a second session.created names an id that was already minted.',
    whyItBreaks:
      'A session id should name one identity. Reused, one string stands for two sessions, and clients, caches and dedup maps keyed on it mix their events: the precondition of a silent fork.',
    shouldHave:
      'Mint session ids from a cryptographically random source and never reuse one; carry an incarnation nonce so that even a reused string stays distinguishable.',
  },
  'replay-on-attach': {
    meaning: 'An upgrade without Last-Event-ID (a session resumption) replayed past events.',
    whyItBreaks:
      'Without Last-Event-ID the client asks for a new stream on its session, not for a continuation: it names no position. Replaying past events treats the session id as a replay cursor and delivers events the client may already have handled, repeating their effects.',
    shouldHave: "Open the new stream without replay, and re-emit or cancel the session's pending server-to-client requests on it.",
  },
  'pending-not-reemitted': {
    meaning:
      'An attach found server-to-client requests pending (sent, and not answered, cancelled, re-issued or timed out), and re-emitted or cancelled fewer of them than were pending.',
    whyItBreaks:
      'Pending requests belong to the session, not to the stream that carried them. A session resumption leaves the old stream behind, so a request delivered only there is lost: the client never sees it and the server waits until it times out.',
    shouldHave:
      'On every attach, re-emit each pending request on the new stream (under a fresh id, the old one tombstoned) or fail it explicitly with a JSON-RPC error.',
  },
  'duplicate-reemit': {
    meaning: 'A stream resumption (resume) re-emitted pending server-to-client requests that its replay or the client already had.',
    whyItBreaks:
      'A resume replays the stream after Last-Event-ID, and that replay already carries every request sent after the position; the ones sent before it the client has. Re-emitting them as well treats a stream resumption as a session resumption and delivers the same request twice.',
    shouldHave: 'On a resume, replay and nothing more; re-emitting pending requests belongs to an attach, which has no replay.',
  },
  'dual-writer': {
    meaning:
      "An accepted upgrade superseded a stream that was neither closed nor fenced at that moment: two writers for one stream lineage (or, on an attach, for the session's standalone stream).",
    whyItBreaks:
      'A resumed stream continues one lineage, and only one writer may hold it. An old stream still registered as live (a half-open socket) keeps receiving server messages that go nowhere, while the new stream never sees them.',
    shouldHave:
      'Fence the prior stream (retire its writer) before attaching the new one; when fencing cannot be confirmed within the grace period, reject the reconnect rather than race two writers.',
  },
  'write-to-superseded-stream': {
    meaning: 'An event or server request was emitted on a stream after an accepted upgrade had superseded that stream.',
    whyItBreaks:
      'After a resumption or attach the new stream carries the lineage and the old one is dead. A write to it goes to a socket nobody reads, or into a buffer no live stream will replay: the message is lost.',
    shouldHave: 'Route every write to the current stream of its lineage, and fence a superseded stream so that nothing can be written to it.',
  },
  'answered-request-replayed': {
    meaning:
      "A resumption's replay window (after Last-Event-ID, up to the reconnect) held a server-to-client request that the client had already answered.",
    whyItBreaks:
      'A replay copies a stream by position, but an answered request is session state that has moved on. Replaying it makes the client handle it a second time (another sampling, another elicitation prompt); leaving it out would leave a gap.',
    shouldHave: 'Reject the resumption when its window holds an already-answered request, and let the client start a fresh session.',
  },
  'stranded-response': strandedResponse.explanation, // until the rule-module index lands
  'orphaned-request': {
    meaning:
      'A server-to-client request (sampling, elicitation, roots) was never answered, re-issued or cancelled; its stream ended or was superseded while it was pending (or a reconnect was rejected), and it timed out or was still pending when the log ends.',
    whyItBreaks:
      "The request belongs to the session but was delivered on one stream only. When that stream died nothing carried it to the session's new stream, so the client never knew of it and the server waited for an answer that could not come.",
    shouldHave:
      "When a stream ends or is superseded, re-issue its pending requests on the session's new stream under fresh ids (tombstoning the old ones), or fail them explicitly to the application.",
  },
  'stale-writer-blocks-reconnect': {
    meaning:
      'Reconnects of a session were rejected as conflicts because an earlier stream was still registered, and that stream was neither closed nor fenced within the fence grace period (default 5 s) after the first rejection.',
    whyItBreaks:
      "A half-open socket can look alive for minutes. Waiting for it to close keeps the session's only writer on a dead stream: the session can no longer receive server messages, and the client keeps retrying.",
    shouldHave:
      'Fence a prior writer it cannot prove alive within a bounded grace period, then accept the reconnect; never wait for the old socket to close on its own.',
  },
  'cross-principal-replay': {
    meaning:
      'A resumption or replay was served to a principal other than the owner of the session whose events were replayed (the presented session, or another one reached through a foreign event id).',
    whyItBreaks:
      "Neither a session id nor an event id proves who the client is. Replaying to another principal hands it the owner's events (sampling prompts, tool results): a confidentiality breach.",
    shouldHave:
      'Bind each session to the principal that created it, check that binding on every reconnect and POST, and reject (403 or 404) a resumption by anyone else.',
  },
  '404-storm': {
    meaning: 'At least 5 POSTs for one session id got 404 within 10 seconds (both thresholds configurable).',
    whyItBreaks:
      'A burst of 404s on one session is the symptom of ids that outlived their session: clients answering requests or calling tools on a session the server no longer knows, typically after a replay from a dead or foreign session. Clients that take a 404 for a transport error retry, and duplicate work.',
    shouldHave:
      "Reject stale session and event ids at the reconnect rather than at every later POST, and look for the cause among the session's earlier findings (foreign-event-id, resume-after-end, silent-fork); a client should re-initialize on 404, not retry.",
  },
  'duplicate-tool-call': {
    meaning:
      'One tools/call was executed twice for one client: the same JSON-RPC id twice in one session, or the same tool and arguments twice by one principal within 60 seconds with a 404, or the end or replacement of the first session, in between.',
    whyItBreaks:
      'A client that lost its session or got a 404 sends the call again, and a server that takes it for a new call repeats its side effect (a write, a payment). This is where a blurred boundary between stream and session costs the most.',
    shouldHave:
      'Deduplicate tool calls by JSON-RPC id within a session and log a recognised retry with executed: false; and avoid the 404s and forks that make clients retry in the first place.',
  },
  'session-in-stateless-era': {
    meaning:
      'A request at protocol revision 2026-07-28 or later was answered with a session: a session.created, an upgrade that minted one, or a response carrying Mcp-Session-Id.',
    whyItBreaks:
      'That revision removed Mcp-Session-Id (SEP-2567): its clients neither keep nor send one, so any state the server hangs on the session is lost on the next request, and a client that does echo it is treated as if it spoke an older revision.',
    shouldHave:
      'At 2026-07-28 and later, mint and echo no session: keep durable work in the tasks extension, and keep sessions only for clients that negotiated an earlier revision.',
  },
  'replay-in-stateless-era': {
    meaning:
      'A request at protocol revision 2026-07-28 or later carried Last-Event-ID and the server resumed the stream or replayed past events.',
    whyItBreaks:
      'That revision removed Last-Event-ID resumption (SEP-2575): the client re-issues a lost request under a new id, so a replay delivers results the client has stopped waiting for, or delivers them twice.',
    shouldHave:
      'Ignore Last-Event-ID on requests at 2026-07-28 and later: answer each request on its own response stream, with no replay.',
  },
  'engine-divergence': {
    meaning:
      'Given the state reconstructed from the log at that moment, the embedded resumption engine decides another class (resume, attach, fresh, reject) than the server logged; the finding names the rules that explain the difference, or says that none does.',
    whyItBreaks:
      "The engine follows the decision boundary: a session id is an identity across streams, an event id a position within one stream. A different decision shows where the server's branching departs from that boundary, even where no other rule fired.",
    shouldHave:
      "Branch on the combination of both headers: resume a retained position of a live session's stream, attach without replay when Last-Event-ID is absent, and otherwise reject or reset explicitly. The engine's decision and reason show which branch applies.",
  },
};
