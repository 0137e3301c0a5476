/**
 * Show Job Details as a read-only view of its own, titled `Job <id> · <name>`: it fills at once
 * from what the caller knows (a Jobs view row holds the job), then with the full record (the
 * `firecrest-job:` Markdown: metadata, script, dependency, provenance), and follows the
 * job while it is open: its state is looked at every few seconds (less often as time passes, not
 * while the view is hidden) until the job has ended. One view per job; opening it again reveals it.
 * The Markdown is rendered by VS Code's own Markdown engine; the view runs no script (its one
 * command link is Show Job Efficiency).
 */
import * as vscode from 'vscode';
import { jobMarkdownTable } from '../common/jobFormat';
import { jobKey, type JobRef } from '../common/jobRef';
import type { ExtensionServices } from '../common/services';
import type { Job } from '../core/model';
import { messageOf } from '../core/errors';

const FIRST_LOOK_MS = 5_000;
const MAX_LOOK_MS = 30_000;

interface Shown {
  panel: vscode.WebviewPanel;
  timer?: NodeJS.Timeout;
  lookMs: number;
  lastState?: string;
  ended: boolean;
}

export class JobDetailsPanels implements vscode.Disposable {
  private readonly shown = new Map<string, Shown>();

  /** `read(ref)`: the Markdown of the job's details, fetched now; `reload(ref)`: an open document of them is fetched again. */
  constructor(
    private readonly services: ExtensionServices,
    private readonly read: (ref: JobRef) => Promise<string>,
    private readonly reload: (ref: JobRef) => void,
  ) {}

  /** Opens (or reveals) the job's view; resolves once its full record is shown, rejects when it cannot be read. */
  async show(ref: JobRef, known?: Job): Promise<void> {
    const key = jobKey(ref);
    const open = this.shown.get(key);
    if (open) {
      open.panel.reveal(undefined, false);
      return this.fill(ref, open);
    }
    const panel = vscode.window.createWebviewPanel('firecrest.jobDetails', title(ref, known), { viewColumn: vscode.ViewColumn.Active }, { enableScripts: false, enableFindWidget: true, localResourceRoots: [], enableCommandUris: ['firecrest.showJobEfficiency'] });
    const s: Shown = { panel, lookMs: FIRST_LOOK_MS, ended: known?.isFinal ?? false, lastState: known?.state };
    this.shown.set(key, s);
    panel.onDidDispose(() => {
      clearTimeout(s.timer);
      this.shown.delete(key);
    });
    panel.onDidChangeViewState(() => {
      if (panel.visible && !s.ended && !s.timer) this.follow(ref, s);
    });
    // At once: what is known now (the row's job), or that it is being read.
    const first = known ? vscode.l10n.t('# Job {0}: {1}\n\n{2}\n\n_Reading the script and the files…_\n', known.id, known.name, jobMarkdownTable(known, ref.system)) : vscode.l10n.t('# Job {0}\n\n_Reading job {1} on {2}…_\n', ref.jobId, ref.jobId, ref.system);
    await this.render(s, first);
    return this.fill(ref, s);
  }

  /** Shows the job's record again where its view is open (what is known of it changed). */
  refill(ref: JobRef): void {
    const s = this.shown.get(jobKey(ref));
    if (s) void this.fill(ref, s).catch(() => undefined);
  }

  private async fill(ref: JobRef, s: Shown): Promise<void> {
    try {
      await this.render(s, await this.read(ref));
    } catch (e) {
      await this.render(s, `# Job ${ref.jobId}\n\n_${vscode.l10n.t('The job could not be read: {0}', messageOf(e))}_\n`);
      throw e;
    }
    if (!s.ended) this.follow(ref, s);
  }

  /** Looks at the job's state now and then; a change (or its end) shows the record again. */
  private follow(ref: JobRef, s: Shown): void {
    clearTimeout(s.timer);
    s.timer = setTimeout(() => {
      s.timer = undefined;
      if (!this.shown.has(jobKey(ref)) || !s.panel.visible) return;
      void this.look(ref, s).finally(() => {
        s.lookMs = Math.min(MAX_LOOK_MS, Math.round(s.lookMs * 1.5));
        if (!s.ended && this.shown.has(jobKey(ref)) && s.panel.visible) this.follow(ref, s);
      });
    }, s.lookMs);
  }

  private async look(ref: JobRef, s: Shown): Promise<void> {
    try {
      const client = await this.services.connections.client(ref.profile);
      const job = await client.job(ref.system, ref.jobId);
      s.panel.title = title(ref, job);
      if (job.state === s.lastState && !job.isFinal) return;
      s.lastState = job.state;
      s.ended = job.isFinal;
      this.reload(ref);
      await this.fill(ref, s);
    } catch (e) {
      // A look that fails (the server away) is tried again at the next one; the view keeps what it shows.
      this.services.log.withTag('jobs').debug(`job details ${ref.jobId}: ${messageOf(e)}`);
    }
  }

  private async render(s: Shown, markdown: string): Promise<void> {
    let body: string;
    try {
      body = await vscode.commands.executeCommand<string>('markdown.api.render', markdown);
    } catch {
      body = `<pre>${escapeHtml(markdown)}</pre>`;
    }
    s.panel.webview.html = page(s.panel.webview, body);
  }

  dispose(): void {
    for (const s of [...this.shown.values()]) s.panel.dispose();
  }
}

function title(ref: JobRef, job?: Job): string {
  return job?.name ? `Job ${ref.jobId} · ${job.name}` : `Job ${ref.jobId}`;
}

function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The view's page: no script, no remote content; VS Code's colours and fonts. */
function page(webview: vscode.Webview, body: string): string {
  const csp = `default-src 'none'; style-src 'unsafe-inline'; img-src ${webview.cspSource} data:`;
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${csp}">
<style>
body { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); color: var(--vscode-foreground); padding: 0 20px 20px; line-height: 1.5; }
h1 { font-size: 1.5em; font-weight: 600; } h2 { font-size: 1.15em; font-weight: 600; margin-top: 1.5em; border-bottom: 1px solid var(--vscode-panel-border); }
table { border-collapse: collapse; } th, td { text-align: left; padding: 2px 12px 2px 0; vertical-align: top; } th { color: var(--vscode-descriptionForeground); font-weight: normal; }
code, pre { font-family: var(--vscode-editor-font-family); font-size: var(--vscode-editor-font-size); }
pre { background: var(--vscode-textCodeBlock-background); padding: 8px 12px; overflow-x: auto; }
em { color: var(--vscode-descriptionForeground); }
</style></head><body>${body}</body></html>`;
}
