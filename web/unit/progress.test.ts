/** A lesson's exercise progress, as the contents and the "Start over" button read it. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clearProgress, loadStatuses, saveProgress, tally } from '../src/lesson/progress';

/** localStorage as the browser has it, for the node test environment. */
class MemoryStorage {
  private items = new Map<string, string>();
  getItem(k: string): string | null {
    return this.items.get(k) ?? null;
  }
  setItem(k: string, v: string): void {
    this.items.set(k, String(v));
  }
  removeItem(k: string): void {
    this.items.delete(k);
  }
}

beforeEach(() => {
  (globalThis as { localStorage?: unknown }).localStorage = new MemoryStorage();
});
afterEach(() => {
  delete (globalThis as { localStorage?: unknown }).localStorage;
});

describe('tally', () => {
  it('counts right, shown and started exercises', () => {
    expect(tally([])).toEqual({ total: 0, right: 0, shown: 0, started: 0 });
    expect(tally(['right', null, 'shown', 'wrong', 'open', 'right'])).toEqual({ total: 6, right: 2, shown: 1, started: 5 });
  });
});

describe('loadStatuses', () => {
  it('reads each exercise of one lesson in the order asked, null where never answered', () => {
    saveProgress('b6', 'ex2', { prediction: '3', attempts: 1, status: 'right' });
    saveProgress('b6', 'ex1', { prediction: 'a', attempts: 2, status: 'wrong' });
    saveProgress('other', 'ex3', { prediction: 'b', attempts: 1, status: 'right' });
    expect(loadStatuses('b6', ['ex1', 'ex2', 'ex3'])).toEqual(['wrong', 'right', null]);
  });

  it('ignores a status it does not know (storage edited by hand or by an older build)', () => {
    localStorage.setItem('flexlab.progress.v1', JSON.stringify({ b6: { ex1: { status: 'done' }, ex2: 7 } }));
    expect(loadStatuses('b6', ['ex1', 'ex2'])).toEqual([null, null]);
    localStorage.setItem('flexlab.progress.v1', 'not json');
    expect(loadStatuses('b6', ['ex1'])).toEqual([null]);
  });

  it('starts over for one lesson only', () => {
    saveProgress('b6', 'ex1', { prediction: '1', attempts: 1, status: 'right' });
    saveProgress('other', 'ex1', { prediction: '1', attempts: 1, status: 'right' });
    clearProgress('b6');
    expect(loadStatuses('b6', ['ex1'])).toEqual([null]);
    expect(loadStatuses('other', ['ex1'])).toEqual(['right']);
  });
});
