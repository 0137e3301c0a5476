/**
 * Search on Cluster: the command, the one running search, and the Cluster Search view. A new
 * search cancels the one before; so does Cancel, and the view staying closed for a minute. The
 * search's job and files are the core's business (src/core/search); this part asks, shows and
 * opens.
 */
import * as vscode from 'vscode';
import type { FirecrestClient } from '../core/client';
import type { Partition } from '../core/model';
import type { SearchSummary } from '../core/search/clusterSearch';
import { FIRECREST_SCHEME, FirecrestUri } from '../core/uri';
import { registerCommand, reportError } from '../common/commandWrapper';
import { homeDirectory } from '../common/homeDirectory';
import type { ExtensionServices } from '../common/services';
import { FileIndexStore, MAX_INDEXED_FILES, type FolderIndex } from './fileIndex';
import { SearchResultsView } from './resultsView';
import { askSearch, EMPTY_SEARCH, globList, type SearchBoxState } from './searchBox';

const LAST_KEY = 'firecrest.search.last';
/** A running search whose view stays closed this long is cancelled. */
const HIDDEN_CANCEL_MS = 60_000;
/** Names that mark a partition for data movement; such a partition runs searches by default. */
const DATA_PARTITION = /^(xfer|transfer|datamover|data-?mover|dm|io)$/i;

interface SearchSettings {
  partition: string;
  maxResults: number;
  maxFileSizeMB: number;
  timeLimitMinutes: number;
  queueWaitSeconds: number;
  tool: 'auto' | 'grep' | 'rg';
}

function settings(): SearchSettings {
  const c = vscode.workspace.getConfiguration('firecrest.search');
  return {
    partition: c.get<string>('partition', '').trim(),
    maxResults: Math.max(1, c.get<number>('maxResults', 10_000)),
    maxFileSizeMB: Math.max(0.001, c.get<number>('maxFileSizeMB', 16)),
    timeLimitMinutes: Math.max(1, c.get<number>('timeLimitMinutes', 10)),
    queueWaitSeconds: Math.max(5, c.get<number>('queueWaitSeconds', 60)),
    tool: c.get<'auto' | 'grep' | 'rg'>('tool', 'auto'),
  };
}

/** The partition a search runs in: the setting, else one named for data movement, else the scheduler's default. */
export function searchPartition(setting: string, partitions: Partition[]): string | undefined {
  if (setting) return setting;
  return partitions.find((p) => DATA_PARTITION.test(p.name))?.name;
}

/** "just now", "5 min ago", "3 h ago", "2 days ago". */
function ageInWords(ms: number): string {
  const min = Math.floor(ms / 60_000);
  if (min < 1) return vscode.l10n.t('just now');
  if (min < 60) return vscode.l10n.t('{0} min ago', min);
  const h = Math.floor(min / 60);
  return h < 48 ? vscode.l10n.t('{0} h ago', h) : vscode.l10n.t('{0} days ago', Math.floor(h / 24));
}

/** "1 result in 1 file", "12 results in 3 files". */
function resultsInFiles(matches: number, files: number): string {
  const r = matches === 1 ? vscode.l10n.t('1 result') : vscode.l10n.t('{0} results', matches.toLocaleString());
  const f = files === 1 ? vscode.l10n.t('1 file') : vscode.l10n.t('{0} files', files.toLocaleString());
  return vscode.l10n.t('{0} in {1}', r, f);
}

interface Running {
  ac: AbortController;
  done: Promise<SearchSummary | undefined>;
}

/** `fileChanges`: the `firecrest:` file system's events, which keep Go to File's indexes current. */
export function registerSearch(services: ExtensionServices, fileChanges?: vscode.Event<readonly vscode.FileChangeEvent[]>): vscode.Disposable {
  const log = services.log.withTag('search');
  const view = new SearchResultsView();
  const partitionFor = async (client: FirecrestClient, system: string) => {
    const s = settings();
    return searchPartition(s.partition, s.partition ? [] : await client.partitions(system).catch(() => []));
  };
  const indexes = new FileIndexStore(services, log, partitionFor, fileChanges);
  let running: Running | undefined;
  let last: { ref: FirecrestUri; state: SearchBoxState } | undefined;
  let hiddenTimer: NodeJS.Timeout | undefined;
  /** Counts searches; a search that is not the newest leaves the view alone (the newest owns it). */
  let generation = 0;

  const setRunning = (on: boolean) => void vscode.commands.executeCommand('setContext', 'firecrest.search.running', on);

  function cancel(reason?: string): void {
    if (!running) return;
    running.ac.abort();
    running = undefined;
    setRunning(false);
    if (reason) view.setMessage(reason);
  }

  async function run(ref: FirecrestUri, state: SearchBoxState): Promise<SearchSummary | undefined> {
    cancel();
    last = { ref, state };
    await services.context.workspaceState.update(LAST_KEY, state);
    const ac = new AbortController();
    const done = execute(ref, state, ac);
    running = { ac, done };
    setRunning(true);
    return done.finally(() => {
      if (running?.ac === ac) {
        running = undefined;
        setRunning(false);
      }
    });
  }

  async function execute(ref: FirecrestUri, state: SearchBoxState, ac: AbortController): Promise<SearchSummary | undefined> {
    const s = settings();
    const mine = ++generation;
    const current = () => mine === generation;
    view.reset({ ref, query: state.pattern });
    void vscode.commands.executeCommand('firecrest.search.focus');
    const where = `${ref.system}:${ref.path}`;
    view.setMessage(vscode.l10n.t('Submitting the search job on {0}…', ref.system));
    const started = Date.now();
    let phase: 'submitting' | 'queued' | 'running' | 'finishing' = 'submitting';
    let phaseSince = started;
    let filesSearched: number | undefined;
    let partition: string | undefined;
    let jobId = '';
    let asking = false;
    /** How long in the queue before the user is asked whether to wait; doubles after each "Keep Waiting". */
    let askAfterMs = s.queueWaitSeconds * 1000;
    const secs = (ms: number) => Math.round(ms / 1000);
    const status = () => {
      const { matches, files } = view.counts;
      if (phase === 'queued') {
        return vscode.l10n.t('Job {0} waits in the queue{1} for {2} s…', jobId, partition ? ` (${partition})` : '', secs(Date.now() - phaseSince));
      }
      const searched = filesSearched !== undefined ? vscode.l10n.t(', {0} files searched', filesSearched.toLocaleString()) : '';
      return vscode.l10n.t('Searching… {0}{1} · {2} s', resultsInFiles(matches, files), searched, secs(Date.now() - started));
    };
    const ticker = setInterval(() => {
      if (phase === 'submitting' || !current()) return;
      view.setMessage(status());
      if (phase === 'queued' && !asking && Date.now() - phaseSince > askAfterMs) {
        asking = true;
        void askAboutQueue();
      }
    }, 1000);
    const askAboutQueue = async () => {
      const keep = vscode.l10n.t('Keep Waiting');
      const stop = vscode.l10n.t('Cancel Search');
      const pick = await vscode.window.showWarningMessage(
        vscode.l10n.t('The search job {0} has waited {1} s in the queue{2} without starting. Keep waiting, or cancel the search? (firecrest.search.partition chooses where searches run.)', jobId, secs(Date.now() - phaseSince), partition ? ` of ${partition}` : ''),
        keep,
        stop,
      );
      if (pick === stop && !ac.signal.aborted && running?.ac === ac) cancel(vscode.l10n.t('Cancelled: the job did not start.'));
      else if (pick === keep) {
        askAfterMs *= 2;
        asking = false;
      }
    };
    try {
      const client: FirecrestClient = await services.connections.client(ref.profile);
      const profile = ref.profile ?? services.connections.defaultProfileName() ?? '';
      let found: string | undefined;
      const [home] = await Promise.all([homeDirectory(services, client, profile, ref.system), partitionFor(client, ref.system).then((p) => { found = p; })]);
      partition = found;
      log.info(`searching ${where} (partition ${partition ?? 'default'}, tool ${s.tool})`);
      // The job script, parser and poll loop are a bundle of their own, loaded by the first search.
      const { searchOnCluster } = await import('../core/search/clusterSearch.js');
      const summary = await searchOnCluster(client, ref.system, {
        root: ref.path,
        pattern: state.pattern,
        regex: state.regex,
        matchCase: state.matchCase,
        wholeWord: state.wholeWord,
        include: globList(state.include),
        exclude: globList(state.exclude),
        maxResults: s.maxResults,
        maxFileSize: Math.round(s.maxFileSizeMB * 1024 * 1024),
      }, {
        signal: ac.signal,
        scratchDir: `${home.replace(/\/+$/, '')}/.firecrest-vscode/search`,
        workingDirectory: home,
        partition,
        timeLimitMinutes: s.timeLimitMinutes,
        tool: s.tool,
        onSubmitted: (id) => { jobId = id; log.info(`search job ${id} submitted`); },
        onPhase: (p) => { phase = p; phaseSince = Date.now(); if (current()) view.setMessage(status()); },
        onMatches: (m) => { if (current()) { view.add(m); view.setMessage(status()); } },
        onFilesSearched: (n) => { filesSearched = n; },
      });
      if (!current()) return summary;
      view.flushNow();
      const { matches, files } = view.counts;
      const took = ((Date.now() - started) / 1000).toFixed(1);
      let message = matches === 0
        ? vscode.l10n.t('No results in {0} ({1} s).', ref.path, took)
        : vscode.l10n.t('{0} ({1} s).', resultsInFiles(matches, files), took);
      if (summary.filesSearched !== undefined) message += ` ${vscode.l10n.t('{0} files searched.', summary.filesSearched.toLocaleString())}`;
      if (summary.capped) message = vscode.l10n.t('Stopped at {0} results, the limit set by firecrest.search.maxResults. Narrow the search to see the rest.', matches.toLocaleString());
      if (summary.warnings.length) {
        message += ` ${vscode.l10n.t('{0} files or folders could not be read (see the log).', summary.warnings.length)}`;
        for (const w of summary.warnings) log.warn(`search ${where}: ${w}`);
      }
      view.setMessage(message);
      log.info(`search ${where}: ${matches} results, ${summary.requests} requests, ${summary.bytesFetched} bytes of output, tool ${summary.tool ?? '?'}`);
      return summary;
    } catch (e) {
      if (!current()) return undefined;
      view.flushNow();
      if (ac.signal.aborted) {
        if (!view.view.message?.startsWith(vscode.l10n.t('Cancelled'))) view.setMessage(vscode.l10n.t('Cancelled.'));
        return undefined;
      }
      view.setMessage(vscode.l10n.t('The search failed: {0}', e instanceof Error ? e.message : String(e)));
      reportError(log, 'Search on Cluster', e);
      return undefined;
    } finally {
      clearInterval(ticker);
    }
  }

  async function pickFolder(arg: unknown): Promise<FirecrestUri | undefined> {
    if (arg instanceof vscode.Uri && arg.scheme === FIRECREST_SCHEME) return FirecrestUri.parse(arg);
    if (typeof arg === 'string' && arg.startsWith(`${FIRECREST_SCHEME}:`)) return FirecrestUri.parse(arg);
    const remote = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === FIRECREST_SCHEME);
    if (remote.length === 1) return FirecrestUri.parse(remote[0].uri);
    if (remote.length > 1) {
      const pick = await vscode.window.showQuickPick(remote.map((f) => ({ label: f.name, description: f.uri.toString(true), folder: f })), { title: vscode.l10n.t('Search on Cluster: which folder?') });
      return pick ? FirecrestUri.parse(pick.folder.uri) : undefined;
    }
    const active = vscode.window.activeTextEditor?.document.uri;
    const value = await vscode.window.showInputBox({
      title: vscode.l10n.t('Search on Cluster: folder'),
      prompt: vscode.l10n.t('The remote folder to search, as a {0}:// URI', FIRECREST_SCHEME),
      value: active?.scheme === FIRECREST_SCHEME ? FirecrestUri.parse(active).dirname.toUri().toString(true) : `${FIRECREST_SCHEME}://`,
      ignoreFocusOut: true,
      validateInput: (v) => {
        try {
          FirecrestUri.parse(v.trim());
          return undefined;
        } catch {
          return vscode.l10n.t('A {0}:// URI, e.g. {0}://daint/home/alice/project', FIRECREST_SCHEME);
        }
      },
    });
    return value === undefined ? undefined : FirecrestUri.parse(value.trim());
  }

  /** The editor's selection (one line) as the text to find, else the last search's. */
  function initialState(): SearchBoxState {
    const saved = services.context.workspaceState.get<SearchBoxState>(LAST_KEY) ?? EMPTY_SEARCH;
    const editor = vscode.window.activeTextEditor;
    const selected = editor && !editor.selection.isEmpty ? editor.document.getText(editor.selection) : '';
    return selected && !/[\r\n]/.test(selected) ? { ...saved, pattern: selected } : saved;
  }

  const remoteOnly = () => {
    const folders = vscode.workspace.workspaceFolders ?? [];
    void vscode.commands.executeCommand('setContext', 'firecrest.remoteWorkspace', folders.length > 0 && folders.every((f) => f.uri.scheme === FIRECREST_SCHEME));
  };
  remoteOnly();

  /** Go to File on Cluster: a quick pick over the indexes of the remote folders; stale ones are rebuilt meanwhile. */
  async function goToFile(arg: unknown): Promise<vscode.Uri | undefined> {
    const given = arg instanceof vscode.Uri || typeof arg === 'string' ? await pickFolder(arg) : undefined;
    const remote = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === FIRECREST_SCHEME).map((f) => f.uri);
    const roots = given ? [vscode.Uri.from({ scheme: FIRECREST_SCHEME, authority: given.authority, path: given.path })] : remote;
    if (roots.length === 0) {
      const ref = await pickFolder(undefined);
      if (!ref) return undefined;
      roots.push(vscode.Uri.from({ scheme: FIRECREST_SCHEME, authority: ref.authority, path: ref.path }));
    }
    const maxAgeMs = Math.max(1, vscode.workspace.getConfiguration('firecrest.search').get<number>('indexMaxAgeMinutes', 60)) * 60_000;
    const qp = vscode.window.createQuickPick<vscode.QuickPickItem & { uri?: vscode.Uri }>();
    qp.placeholder = vscode.l10n.t('File name on the cluster (fuzzy)');
    qp.matchOnDescription = true;
    const refresh: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('refresh'), tooltip: vscode.l10n.t('Index Again') };
    qp.buttons = [refresh];
    const ac = new AbortController();
    const shown = new Map<string, FolderIndex>();
    let pending = 0;
    const render = () => {
      const items: (vscode.QuickPickItem & { uri?: vscode.Uri })[] = [];
      for (const root of roots) {
        const index = shown.get(root.toString());
        if (!index) continue;
        const name = roots.length > 1 ? `${root.path.slice(root.path.lastIndexOf('/') + 1)}/` : '';
        for (const rel of index.files) {
          const i = rel.lastIndexOf('/');
          items.push({ label: rel.slice(i + 1), description: name + (i > 0 ? rel.slice(0, i) : ''), uri: vscode.Uri.joinPath(root, rel) });
        }
      }
      qp.items = items;
      const oldest = Math.min(...[...shown.values()].map((i) => i.builtAt));
      const age = shown.size ? ageInWords(Date.now() - oldest) : '';
      const capped = [...shown.values()].some((i) => i.capped) ? ` · ${vscode.l10n.t('first {0} files only', MAX_INDEXED_FILES.toLocaleString())}` : '';
      qp.title = pending > 0
        ? vscode.l10n.t('Go to File on Cluster · indexing on the cluster…{0}', shown.size ? ` · ${vscode.l10n.t('{0} files, indexed {1}', items.length.toLocaleString(), age)}` : '')
        : vscode.l10n.t('Go to File on Cluster · {0} files, indexed {1}{2}', items.length.toLocaleString(), age, capped);
      qp.busy = pending > 0;
    };
    const rebuild = (root: vscode.Uri) => {
      pending++;
      render();
      indexes.build(root, ac.signal).then(
        (index) => { shown.set(root.toString(), index); },
        (e: unknown) => { if (!ac.signal.aborted) reportError(log, 'Go to File on Cluster', e); },
      ).finally(() => { pending--; render(); });
    };
    for (const root of roots) {
      const index = await indexes.stored(root);
      if (index) shown.set(root.toString(), index);
      if (!index || Date.now() - index.builtAt > maxAgeMs) rebuild(root);
    }
    render();
    return new Promise((resolve) => {
      qp.onDidTriggerButton(() => { for (const root of roots) rebuild(root); });
      qp.onDidAccept(async () => {
        const uri = qp.selectedItems[0]?.uri;
        if (!uri) return;
        qp.hide();
        await vscode.window.showTextDocument(uri, { preview: true });
        resolve(uri);
      });
      // Closing the pick stops an index job still running.
      qp.onDidHide(() => { ac.abort(); qp.dispose(); resolve(undefined); });
      qp.show();
    });
  }

  const disposables: vscode.Disposable[] = [
    view,
    indexes,
    registerCommand('firecrest.goToFileOnCluster', log, (arg?: unknown) => goToFile(arg)),
    vscode.workspace.onDidChangeWorkspaceFolders(remoteOnly),
    view.view.onDidChangeVisibility((e) => {
      if (hiddenTimer) clearTimeout(hiddenTimer);
      hiddenTimer = undefined;
      if (!e.visible && running) hiddenTimer = setTimeout(() => cancel(vscode.l10n.t('Cancelled: the Cluster Search view was closed.')), HIDDEN_CANCEL_MS);
    }),
    { dispose: () => { if (hiddenTimer) clearTimeout(hiddenTimer); cancel(); } },
    registerCommand('firecrest.searchOnCluster', log, async (arg?: unknown) => {
      // Scripts and tests: { folder, query } searches without asking.
      const given = arg && typeof arg === 'object' && !(arg instanceof vscode.Uri) && 'query' in arg ? (arg as { folder?: string; query: Partial<SearchBoxState> }) : undefined;
      const ref = await pickFolder(given ? given.folder : arg);
      if (!ref) return undefined;
      const state = given ? { ...EMPTY_SEARCH, ...given.query } : await askSearch(ref.basename || ref.path, initialState());
      if (!state) return undefined;
      return run(ref, state);
    }),
    registerCommand('firecrest.search.cancel', log, () => cancel(vscode.l10n.t('Cancelled.'))),
    registerCommand('firecrest.search.clear', log, () => {
      cancel();
      view.reset(undefined);
    }),
    registerCommand('firecrest.search.rerun', log, () => (last ? run(last.ref, last.state) : vscode.commands.executeCommand('firecrest.searchOnCluster'))),
    registerCommand('firecrest.search.openResult', log, async (uri: unknown, line: unknown, start: unknown, end: unknown) => {
      if (!(uri instanceof vscode.Uri)) return;
      const l = Math.max(0, Number(line) - 1);
      const range = new vscode.Range(l, Number(start) || 0, l, Number(end) || 0);
      await vscode.window.showTextDocument(uri, { selection: range, preview: true });
    }),
  ];
  if (services.context.extensionMode !== vscode.ExtensionMode.Production) {
    disposables.push(vscode.commands.registerCommand('firecrest.test.searchView', () => view.snapshot()));
    // The folder's index as Go to File has it (`build`: list it on the cluster first), and the count of index jobs so far.
    disposables.push(vscode.commands.registerCommand('firecrest.test.fileIndex', async (folder: string, build = false) => {
      const root = vscode.Uri.parse(folder);
      const index = build ? await indexes.build(root) : await indexes.stored(root);
      return { files: index?.files, builtAt: index?.builtAt, builds: indexes.builds };
    }));
  }
  return vscode.Disposable.from(...disposables.reverse());
}
