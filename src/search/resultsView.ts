/**
 * The Cluster Search view: the files that match (with their counts), under each the matching
 * lines with the match highlighted. A click opens the remote file at the match. The view's message
 * says what the search is doing: queued for how long, running with how many results so far, or
 * how it ended. Results arrive in bursts; the tree is redrawn at most every 200 ms.
 */
import * as vscode from 'vscode';
import type { SearchMatch } from '../core/search/clusterSearch';
import { FIRECREST_SCHEME, type FirecrestUri } from '../core/uri';

export interface SearchViewSnapshot {
  message?: string;
  description?: string;
  matchCount: number;
  fileCount: number;
  files: { label: string; description: string; uri?: string; lines: { label: string; highlights: [number, number][]; description: string; command?: string; arguments: unknown[] }[] }[];
}

export interface FileNode { kind: 'file'; path: string; matches: SearchMatch[] }
export interface LineNode { kind: 'line'; file: FileNode; match: SearchMatch }
type Node = FileNode | LineNode;

/** Characters of a line shown before its first match (the rest is cut with an ellipsis). */
const LEAD = 30;
const MAX_PREVIEW = 250;
const REDRAW_MS = 200;

/** What one search shows: its folder, its results and its state line. */
export interface ResultsSource {
  ref: FirecrestUri;
  query: string;
}

export class SearchResultsView implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  readonly view: vscode.TreeView<Node>;
  private files = new Map<string, FileNode>();
  private sorted: FileNode[] | undefined;
  private source: ResultsSource | undefined;
  private matchCount = 0;
  private redraw: NodeJS.Timeout | undefined;

  constructor() {
    this.view = vscode.window.createTreeView('firecrest.search', { treeDataProvider: this, showCollapseAll: true });
  }

  /** Empties the view for a new search (or for none). */
  reset(source: ResultsSource | undefined): void {
    this.source = source;
    this.files = new Map();
    this.sorted = undefined;
    this.matchCount = 0;
    this.view.description = source ? source.query : undefined;
    this.setMessage(undefined);
    this.flush();
    void vscode.commands.executeCommand('setContext', 'firecrest.search.hasResults', false);
  }

  add(matches: SearchMatch[]): void {
    for (const m of matches) {
      let file = this.files.get(m.path);
      if (!file) {
        file = { kind: 'file', path: m.path, matches: [] };
        this.files.set(m.path, file);
        this.sorted = undefined;
      }
      file.matches.push(m);
    }
    this.matchCount += matches.length;
    if (this.matchCount > 0) void vscode.commands.executeCommand('setContext', 'firecrest.search.hasResults', true);
    this.redraw ??= setTimeout(() => this.flush(), REDRAW_MS);
  }

  get counts(): { matches: number; files: number } {
    return { matches: this.matchCount, files: this.files.size };
  }

  setMessage(text: string | undefined): void {
    this.view.message = text;
  }

  private flush(): void {
    if (this.redraw) clearTimeout(this.redraw);
    this.redraw = undefined;
    this.changed.fire(undefined);
  }

  /** Draws what has arrived now (at the end of a search, so that the last burst is not 200 ms late). */
  flushNow(): void {
    this.flush();
  }

  getChildren(node?: Node): Node[] {
    if (!node) {
      this.sorted ??= [...this.files.values()].sort((a, b) => a.path.localeCompare(b.path));
      return this.sorted;
    }
    if (node.kind === 'file') return node.matches.map((match) => ({ kind: 'line', file: node, match }));
    return [];
  }

  getTreeItem(node: Node): vscode.TreeItem {
    const src = this.source;
    if (node.kind === 'file') {
      const uri = src ? this.uriOf(node.path) : undefined;
      const item = new vscode.TreeItem(basename(node.path), this.files.size <= 50 ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed);
      item.resourceUri = uri;
      const rel = src ? relative(src.ref.path, dirname(node.path)) : dirname(node.path);
      item.description = `${rel === '' ? '' : `${rel} · `}${node.matches.length}`;
      item.tooltip = `${node.path}\n${vscode.l10n.t('{0} matching lines', node.matches.length)}`;
      item.contextValue = 'searchFile';
      item.id = `f:${node.path}`;
      return item;
    }
    const { text, highlights } = preview(node.match);
    const item = new vscode.TreeItem({ label: text, highlights }, vscode.TreeItemCollapsibleState.None);
    item.description = `${node.match.line}`;
    item.tooltip = `${node.file.path}:${node.match.line}`;
    item.contextValue = 'searchLine';
    const uri = src ? this.uriOf(node.file.path) : undefined;
    if (uri) {
      const [start, end] = node.match.ranges[0] ?? [0, 0];
      item.command = { command: 'firecrest.search.openResult', title: vscode.l10n.t('Open'), arguments: [uri, node.match.line, start, end] };
    }
    return item;
  }

  getParent(node: Node): Node | undefined {
    return node.kind === 'line' ? node.file : undefined;
  }

  private uriOf(path: string): vscode.Uri | undefined {
    const ref = this.source?.ref;
    if (!ref) return undefined;
    const r = ref.with({ path });
    return vscode.Uri.from({ scheme: FIRECREST_SCHEME, authority: r.authority, path: r.path });
  }

  /** Test hook: what the view shows, as plain data, with what a click on each line runs. */
  snapshot(): SearchViewSnapshot {
    const files = (this.getChildren() as FileNode[]).map((f) => {
      const item = this.getTreeItem(f);
      const lines = this.getChildren(f).map((l) => {
        const li = this.getTreeItem(l);
        const label = li.label as vscode.TreeItemLabel;
        return { label: label.label, highlights: label.highlights ?? [], description: String(li.description ?? ''), command: li.command?.command, arguments: (li.command?.arguments ?? []).map((a: unknown) => (a instanceof vscode.Uri ? a.toString() : a)) };
      });
      return { label: basename(f.path), description: String(item.description ?? ''), uri: item.resourceUri?.toString(), lines };
    });
    return { message: this.view.message, description: this.view.description, matchCount: this.matchCount, fileCount: this.files.size, files };
  }

  dispose(): void {
    if (this.redraw) clearTimeout(this.redraw);
    this.view.dispose();
    this.changed.dispose();
  }
}

/** The line as shown: leading blanks dropped, and when the first match is far in, cut before it; highlights moved along. */
export function preview(m: SearchMatch): { text: string; highlights: [number, number][] } {
  let text = m.text;
  let shift = text.length - text.trimStart().length;
  const first = m.ranges[0]?.[0] ?? 0;
  let prefix = '';
  if (first - shift > LEAD) {
    shift = first - LEAD / 2;
    prefix = '…';
  }
  text = prefix + text.slice(shift).trimEnd();
  if (text.length > MAX_PREVIEW) text = `${text.slice(0, MAX_PREVIEW)}…`;
  const highlights = m.ranges
    .map(([s, e]): [number, number] => [s - shift + prefix.length, Math.min(e - shift + prefix.length, text.length)])
    .filter(([s, e]) => s >= prefix.length && e > s);
  return { text, highlights };
}

function basename(p: string): string {
  return p.slice(p.lastIndexOf('/') + 1);
}

function dirname(p: string): string {
  const i = p.lastIndexOf('/');
  return i <= 0 ? '/' : p.slice(0, i);
}

function relative(root: string, dir: string): string {
  const r = root.replace(/\/+$/, '');
  if (dir === r) return '';
  return dir.startsWith(`${r}/`) ? dir.slice(r.length + 1) : dir;
}

