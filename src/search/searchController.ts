/**
 * The one running search of a window: a new search cancels the one before; so do Cancel and the
 * Cluster Search view staying closed for a minute. The search's job and files are the core's
 * (src/core/search, a bundle loaded by the first search); this shows its progress and results.
 */
import { sidecarScratch } from '../core/sidecar/sidecar';
import * as vscode from 'vscode';
import { reportError } from '../common/commandWrapper';
import { ContextKeys } from '../common/contextKeys';
import { homeDirectory } from '../common/homeDirectory';
import type { ExtensionServices, Log } from '../common/services';
import type { FirecrestClient } from '../core/client';
import type { SearchSummary } from '../core/search/clusterSearch';
import type { FirecrestUri } from '../core/uri';
import type { SearchResultsView } from './resultsView';
import { globList, type SearchBoxState } from './searchBox';
import { LAST_SEARCH_KEY } from './searchFolder';
import { resultsInFiles, searchSettings, type SearchSettings } from './searchSettings';
import { messageOf } from '../core/errors';

/** A running search whose view stays closed this long is cancelled. */
const HIDDEN_CANCEL_MS = 60_000;

interface Running {
  ac: AbortController;
  done: Promise<SearchSummary | undefined>;
}

export class SearchController implements vscode.Disposable {
  private running: Running | undefined;
  /** The last search (Search Again). */
  last: { ref: FirecrestUri; state: SearchBoxState } | undefined;
  private hiddenTimer: NodeJS.Timeout | undefined;
  /** Counts searches; a search that is not the newest leaves the view alone (the newest owns it). */
  private generation = 0;
  private readonly sub: vscode.Disposable;

  constructor(
    private readonly services: ExtensionServices,
    private readonly view: SearchResultsView,
    private readonly partitionFor: (client: FirecrestClient, system: string) => Promise<string | undefined>,
    private readonly log: Log,
  ) {
    this.sub = view.view.onDidChangeVisibility((e) => {
      if (this.hiddenTimer) clearTimeout(this.hiddenTimer);
      this.hiddenTimer = undefined;
      if (!e.visible && this.running) this.hiddenTimer = setTimeout(() => this.cancel(vscode.l10n.t('Cancelled: the Cluster Search view was closed.')), HIDDEN_CANCEL_MS);
    });
  }

  private setRunning(on: boolean): void {
    void vscode.commands.executeCommand('setContext', ContextKeys.searchRunning, on);
  }

  cancel(reason?: string): void {
    if (!this.running) return;
    this.running.ac.abort();
    this.running = undefined;
    this.setRunning(false);
    if (reason) this.view.setMessage(reason);
  }

  async run(ref: FirecrestUri, state: SearchBoxState): Promise<SearchSummary | undefined> {
    this.cancel();
    this.last = { ref, state };
    await this.services.context.workspaceState.update(LAST_SEARCH_KEY, state);
    const ac = new AbortController();
    const done = this.execute(ref, state, ac);
    this.running = { ac, done };
    this.setRunning(true);
    return done.finally(() => {
      if (this.running?.ac === ac) {
        this.running = undefined;
        this.setRunning(false);
      }
    });
  }

  private async execute(ref: FirecrestUri, state: SearchBoxState, ac: AbortController): Promise<SearchSummary | undefined> {
    const s = searchSettings();
    const mine = ++this.generation;
    const current = () => mine === this.generation;
    this.view.reset({ ref, query: state.pattern });
    void vscode.commands.executeCommand('firecrest.search.focus');
    const where = `${ref.system}:${ref.path}`;
    this.view.setMessage(vscode.l10n.t('Submitting the search job on {0}…', ref.system));
    const progress = new SearchProgress(this.view, s, current, () => {
      if (!ac.signal.aborted && this.running?.ac === ac) this.cancel(vscode.l10n.t('Cancelled: the job did not start.'));
    });
    try {
      const client: FirecrestClient = await this.services.connections.client(ref.profile);
      const profile = ref.profile ?? this.services.connections.defaultProfileName() ?? '';
      const [home, partition] = await Promise.all([homeDirectory(this.services, client, profile, ref.system), this.partitionFor(client, ref.system)]);
      progress.partition = partition;
      this.log.info(`searching ${where} (partition ${partition ?? 'default'}, tool ${s.tool})`);
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
        scratchDir: sidecarScratch(home),
        workingDirectory: home,
        partition,
        timeLimitMinutes: s.timeLimitMinutes,
        tool: s.tool,
        onSubmitted: (id) => { progress.jobId = id; this.log.info(`search job ${id} submitted`); },
        onPhase: (p) => progress.setPhase(p),
        onMatches: (m) => { if (current()) { this.view.add(m); this.view.setMessage(progress.status()); } },
        onFilesSearched: (n) => { progress.filesSearched = n; },
      });
      if (current()) this.finished(ref, summary, progress.started);
      return summary;
    } catch (e) {
      if (!current()) return undefined;
      this.view.flushNow();
      if (ac.signal.aborted) {
        if (!this.view.view.message?.startsWith(vscode.l10n.t('Cancelled'))) this.view.setMessage(vscode.l10n.t('Cancelled.'));
        return undefined;
      }
      this.view.setMessage(vscode.l10n.t('The search failed: {0}', messageOf(e)));
      reportError(this.log, vscode.l10n.t('Search on Cluster'), e);
      return undefined;
    } finally {
      progress.dispose();
    }
  }

  /** The view's last line: what was found, in how long, and what could not be read. */
  private finished(ref: FirecrestUri, summary: SearchSummary, started: number): void {
    const where = `${ref.system}:${ref.path}`;
    this.view.flushNow();
    const { matches, files } = this.view.counts;
    const took = ((Date.now() - started) / 1000).toFixed(1);
    let message = matches === 0
      ? vscode.l10n.t('No results in {0} ({1} s).', ref.path, took)
      : vscode.l10n.t('{0} ({1} s).', resultsInFiles(matches, files), took);
    if (summary.filesSearched !== undefined) message += ` ${vscode.l10n.t('{0} files searched.', summary.filesSearched.toLocaleString())}`;
    if (summary.capped) message = vscode.l10n.t('Stopped at {0} results, the limit set by firecrest.search.maxResults. Narrow the search to see the rest.', matches.toLocaleString());
    if (summary.warnings.length) {
      message += ` ${vscode.l10n.t('{0} files or folders could not be read (see the log).', summary.warnings.length)}`;
      for (const w of summary.warnings) this.log.warn(`search ${where}: ${w}`);
    }
    this.view.setMessage(message);
    this.log.info(`search ${where}: ${matches} results, ${summary.requests} requests, ${summary.bytesFetched} bytes of output, tool ${summary.tool ?? '?'}`);
  }

  dispose(): void {
    if (this.hiddenTimer) clearTimeout(this.hiddenTimer);
    this.sub.dispose();
    this.cancel();
  }
}

/**
 * A running search's line in the view, once a second: where its job is (queued, how long) and
 * what it found so far. A job that waits in the queue longer than the setting says is asked
 * about (Keep Waiting doubles the wait before the next question).
 */
class SearchProgress implements vscode.Disposable {
  readonly started = Date.now();
  private phase: 'submitting' | 'queued' | 'running' | 'finishing' = 'submitting';
  private phaseSince = this.started;
  filesSearched: number | undefined;
  partition: string | undefined;
  jobId = '';
  private asking = false;
  private askAfterMs: number;
  private readonly ticker: NodeJS.Timeout;

  constructor(private readonly view: SearchResultsView, s: SearchSettings, private readonly current: () => boolean, private readonly stop: () => void) {
    this.askAfterMs = s.queueWaitSeconds * 1000;
    this.ticker = setInterval(() => this.tick(), 1000);
  }

  setPhase(p: 'submitting' | 'queued' | 'running' | 'finishing'): void {
    this.phase = p;
    this.phaseSince = Date.now();
    if (this.current()) this.view.setMessage(this.status());
  }

  status(): string {
    const secs = (ms: number) => Math.round(ms / 1000);
    const { matches, files } = this.view.counts;
    if (this.phase === 'queued') {
      return vscode.l10n.t('Job {0} waits in the queue{1} for {2} s…', this.jobId, this.partition ? ` (${this.partition})` : '', secs(Date.now() - this.phaseSince));
    }
    const searched = this.filesSearched !== undefined ? vscode.l10n.t(', {0} files searched', this.filesSearched.toLocaleString()) : '';
    return vscode.l10n.t('Searching… {0}{1} · {2} s', resultsInFiles(matches, files), searched, secs(Date.now() - this.started));
  }

  private tick(): void {
    if (this.phase === 'submitting' || !this.current()) return;
    this.view.setMessage(this.status());
    if (this.phase === 'queued' && !this.asking && Date.now() - this.phaseSince > this.askAfterMs) {
      this.asking = true;
      void this.askAboutQueue();
    }
  }

  private async askAboutQueue(): Promise<void> {
    const keep = vscode.l10n.t('Keep Waiting');
    const stop = vscode.l10n.t('Cancel Search');
    const pick = await vscode.window.showWarningMessage(
      vscode.l10n.t('The search job {0} has waited {1} s in the queue{2} without starting. Keep waiting, or cancel the search? (firecrest.search.partition chooses where searches run.)', this.jobId, Math.round((Date.now() - this.phaseSince) / 1000), this.partition ? ` of ${this.partition}` : ''),
      keep,
      stop,
    );
    if (pick === stop) this.stop();
    else if (pick === keep) {
      this.askAfterMs *= 2;
      this.asking = false;
    }
  }

  dispose(): void {
    clearInterval(this.ticker);
  }
}
