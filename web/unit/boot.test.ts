/** boot.ts: a worker started before its client says nothing into the void. */
import { describe, expect, it } from 'vitest';
import { dropUntaken, keepWorker, takeWorker } from '../src/boot';

// Node has no ErrorEvent; the page's is a plain Event with a message
class NodeErrorEvent extends Event {
  readonly message: string;
  constructor(type: string, init: { message?: string; cancelable?: boolean } = {}) {
    super(type, init);
    this.message = init.message ?? '';
  }
}
(globalThis as { ErrorEvent?: unknown }).ErrorEvent ??= NodeErrorEvent;

/** A Worker's event side: `onmessage`/`onerror` are listeners, as in the page. */
class FakeWorker extends EventTarget {
  terminated = false;
  private handlers = new Map<string, EventListener>();
  private set(type: string, f: ((ev: Event) => void) | null): void {
    const old = this.handlers.get(type);
    if (old) this.removeEventListener(type, old);
    this.handlers.delete(type);
    if (f) {
      this.handlers.set(type, f);
      this.addEventListener(type, f);
    }
  }
  set onmessage(f: ((ev: MessageEvent) => void) | null) {
    this.set('message', f as ((ev: Event) => void) | null);
  }
  set onerror(f: ((ev: ErrorEvent) => void) | null) {
    this.set('error', f as ((ev: Event) => void) | null);
  }
  say(data: unknown): void {
    this.dispatchEvent(new MessageEvent('message', { data }));
  }
  fail(message: string): void {
    this.dispatchEvent(new ErrorEvent('error', { message, cancelable: true }));
  }
  terminate(): void {
    this.terminated = true;
  }
}

describe('workers started ahead of their clients', () => {
  it('replays what the worker said before it was taken, in order, before what it says after', async () => {
    const w = new FakeWorker();
    keepWorker('sim', w as unknown as Worker);
    w.say('ready');
    w.fail('boom');
    w.say('late');
    const taken = takeWorker('sim') as unknown as FakeWorker;
    expect(taken).toBe(w);
    const heard: string[] = [];
    taken.onmessage = (ev) => heard.push(`message ${String(ev.data)}`);
    taken.onerror = (ev) => heard.push(`error ${ev.message}`);
    expect(heard).toEqual([]); // not before the client's constructor has finished
    await Promise.resolve();
    w.say('after');
    expect(heard).toEqual(['message ready', 'error boom', 'message late', 'message after']);
    expect(takeWorker('sim')).toBeNull(); // once
  });

  it('ends the workers no client took', () => {
    const w = new FakeWorker();
    keepWorker('lesson', w as unknown as Worker);
    dropUntaken();
    expect(w.terminated).toBe(true);
    expect(takeWorker('lesson')).toBeNull();
  });
});
