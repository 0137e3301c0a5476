/**
 * A `Disposable` base: owned resources are registered once and released together; disposing
 * twice is safe, and anything registered after disposal is released at once.
 */
import type * as vscode from 'vscode';

export interface DisposableLike {
  dispose(): unknown;
}

export abstract class Disposable implements vscode.Disposable {
  private readonly _toDispose = new Set<DisposableLike>();
  private _isDisposed = false;

  protected get isDisposed(): boolean {
    return this._isDisposed;
  }

  protected _register<T extends DisposableLike>(d: T): T {
    if (this._isDisposed) {
      void d.dispose();
    } else {
      this._toDispose.add(d);
    }
    return d;
  }

  dispose(): void {
    if (this._isDisposed) return;
    this._isDisposed = true;
    // Keep going when one resource throws: a half-disposed object leaks the rest.
    const errors: unknown[] = [];
    for (const d of [...this._toDispose].reverse()) {
      try {
        void d.dispose();
      } catch (e) {
        errors.push(e);
      }
    }
    this._toDispose.clear();
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) throw new AggregateError(errors, 'Several resources failed to dispose');
  }
}

/** Wraps a function as a disposable that runs at most once. */
export function toDisposable(fn: () => void): vscode.Disposable {
  let done = false;
  return {
    dispose: () => {
      if (done) return;
      done = true;
      fn();
    },
  };
}
