import { waitFor as poll } from '../../helpers/wait.js';

export { sleep } from '../../helpers/wait.js';

/** The shared poll, with the end-to-end tests' default bound of 3 s. */
export function waitFor<T>(what: string, check: () => T | undefined | false, timeoutMs = 3000): Promise<T> {
  return poll(what, check, timeoutMs);
}
