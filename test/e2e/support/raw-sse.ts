import { waitFor } from './wait.js';

// A hand-made GET, for what the SDK client will not send: another session's
// event id, or a re-attach without the Last-Event-ID it holds.

export interface RawStream {
  status: number;
  /** Everything received so far. */
  text(): string;
  /** Waits until the received text satisfies `check`. */
  waitFor(what: string, check: (text: string) => boolean, timeoutMs?: number): Promise<void>;
  close(): void;
}

export async function openRawGet(url: URL, headers: Record<string, string>): Promise<RawStream> {
  const abort = new AbortController();
  const res = await fetch(url, {
    headers: { accept: 'text/event-stream', 'mcp-protocol-version': '2025-11-25', ...headers },
    signal: abort.signal,
  });
  let received = '';
  const decoder = new TextDecoder();
  const pump = async (): Promise<void> => {
    const reader = res.body?.getReader();
    if (reader === undefined) return;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      received += decoder.decode(value, { stream: true });
    }
  };
  pump().catch(() => {});
  return {
    status: res.status,
    text: () => received,
    waitFor: (what, check, timeoutMs) => waitFor(what, () => check(received), timeoutMs).then(() => {}),
    close: () => abort.abort(),
  };
}
