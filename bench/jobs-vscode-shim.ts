/**
 * The few `vscode` classes the Jobs model and provider use, for running them from plain Node in
 * bench/jobs.ts (bundled with `vscode` aliased to this file). Same shapes, no behaviour beyond
 * what the tree code relies on, so the timing is of our code, not of a stand-in.
 */
export enum TreeItemCollapsibleState {
  None = 0,
  Collapsed = 1,
  Expanded = 2,
}

export class ThemeColor {
  constructor(readonly id: string) {}
}

export class ThemeIcon {
  constructor(
    readonly id: string,
    readonly color?: ThemeColor,
  ) {}
}

export class MarkdownString {
  supportHtml = false;
  constructor(
    public value = '',
    readonly supportThemeIcons = false,
  ) {}
}

export class TreeItem {
  description?: string;
  tooltip?: string | MarkdownString;
  iconPath?: ThemeIcon;
  contextValue?: string;
  id?: string;
  command?: { title: string; command: string; arguments?: unknown[] };
  constructor(
    public label: string,
    public collapsibleState: TreeItemCollapsibleState = TreeItemCollapsibleState.None,
  ) {}
}

export class Disposable {
  constructor(private readonly fn: () => void) {}
  dispose(): void {
    this.fn();
  }
}

type Listener<T> = (e: T) => unknown;

export class EventEmitter<T> {
  private listeners = new Set<Listener<T>>();
  readonly event = (listener: Listener<T>): Disposable => {
    this.listeners.add(listener);
    return new Disposable(() => this.listeners.delete(listener));
  };
  fire(e: T): void {
    for (const l of [...this.listeners]) l(e);
  }
  dispose(): void {
    this.listeners.clear();
  }
}

/** Settings as a fresh install has them: every `get` answers undefined, so the code's defaults apply. */
export const workspace = {
  getConfiguration: (_section?: string) => ({ get: <T>(_key: string): T | undefined => undefined }),
  onDidChangeConfiguration: (_listener: (e: { affectsConfiguration(s: string): boolean }) => unknown): Disposable => new Disposable(() => undefined),
};

/** Messages in English, `{0}` filled in, as VS Code does without a language pack. */
export const l10n = {
  t: (message: string, ...args: unknown[]): string => message.replace(/\{(\d+)\}/g, (m, i: string) => (Number(i) < args.length ? String(args[Number(i)]) : m)),
};

/** Only for `instanceof` checks: no bench code makes one. */
export class Uri {}
