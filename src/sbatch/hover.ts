/**
 * Hover in `#SBATCH` lines: an option name explains the option; a partition or reservation value
 * shows the live facts of the target system (state, max time, nodes; the reservation's window);
 * a time or memory value shows what sbatch reads it as.
 */
import * as vscode from 'vscode';
import type { SbatchDirective, Span } from '../core/sbatch/types';
import { formatTime } from '../core/sbatch/values';
import type { Partition, Reservation } from '../core/model';
import type { SbatchDocuments } from './documents';
import { formatWhen, isMaintenance } from '../core/sbatch/liveChecks';
import type { SbatchLiveData } from './liveData';

const within = (s: Span | undefined, pos: vscode.Position): s is Span => !!s && s.line === pos.line && pos.character >= s.start && pos.character <= s.end;
const range = (s: Span) => new vscode.Range(s.line, s.start, s.line, s.end);

export class SbatchHoverProvider implements vscode.HoverProvider {
  constructor(
    private readonly documents: SbatchDocuments,
    private readonly liveData: SbatchLiveData,
  ) {}

  async provideHover(doc: vscode.TextDocument, pos: vscode.Position): Promise<vscode.Hover | undefined> {
    const script = this.documents.script(doc);
    const d = script.directives.find((x) => x.nameSpan.line === pos.line && (within(x.nameSpan, pos) || within(x.valueSpan, pos)));
    if (!d?.option) return undefined;
    if (within(d.nameSpan, pos)) return new vscode.Hover(optionDoc(d), range(d.nameSpan));

    if (d.typed?.kind === 'time') return new vscode.Hover(`\`${d.value}\` = ${formatTime(d.typed.seconds)} (${describeSeconds(d.typed.seconds)})`, range(d.valueSpan!));
    if (d.typed?.kind === 'memory') return new vscode.Hover(`\`${d.value}\` = ${d.typed.mebibytes} MiB`, range(d.valueSpan!));
    if (d.typed?.kind !== 'list' || (d.name !== 'partition' && d.name !== 'reservation')) return undefined;
    const item = d.typed.items.find((i) => within(i.span, pos));
    if (!item) return undefined;
    const target = await this.documents.target(doc.uri);
    if (!target || !this.liveData.canFetch(target.profile)) return undefined;
    const live = this.liveData.peek(target) ?? (await this.liveData.get(target));
    if (!live) return undefined;
    const md = d.name === 'partition'
      ? partitionDoc(live.partitions.find((p) => p.name === item.text), item.text, target.system)
      : reservationDoc(live.reservations.find((r) => r.name === item.text), item.text, target.system);
    return new vscode.Hover(md, range(item.span));
  }
}

function optionDoc(d: SbatchDirective): vscode.MarkdownString {
  const o = d.option!;
  const md = new vscode.MarkdownString();
  md.appendMarkdown(`**--${o.long}**${o.short ? ` (\`-${o.short}\`)` : ''}${o.placeholder ? ` \`${o.placeholder}\`` : ''}\n\n`);
  md.appendMarkdown(o.description);
  if (d.written !== `--${o.long}` && d.written !== `-${o.short}`) md.appendMarkdown(`\n\n${vscode.l10n.t('`{0}` is read as `--{1}`.', d.written, o.long)}`);
  return md;
}

function partitionDoc(p: Partition | undefined, name: string, system: string): vscode.MarkdownString {
  const md = new vscode.MarkdownString();
  if (!p) return md.appendMarkdown(vscode.l10n.t('Partition **{0}** does not exist on {1}.', name, system));
  md.appendMarkdown(`**Partition ${p.name}** on ${system}${p.isDefault ? ' (default)' : ''}\n\n`);
  md.appendMarkdown(`- State: ${p.state || 'unknown'}\n`);
  md.appendMarkdown(vscode.l10n.t('- Max time: {0}\n', p.maxTimeSeconds === undefined ? 'unknown' : formatTime(p.maxTimeSeconds)));
  if (p.totalNodes !== undefined) md.appendMarkdown(`- Nodes: ${p.totalNodes}\n`);
  if (p.cpus !== undefined) md.appendMarkdown(`- CPUs: ${p.cpus}\n`);
  return md;
}

function reservationDoc(r: Reservation | undefined, name: string, system: string): vscode.MarkdownString {
  const md = new vscode.MarkdownString();
  if (!r) return md.appendMarkdown(vscode.l10n.t('Reservation **{0}** does not exist on {1}.', name, system));
  md.appendMarkdown(`**Reservation ${r.name}** on ${system}${isMaintenance(r) ? ' (maintenance)' : ''}\n\n`);
  md.appendMarkdown(`- State: ${r.state || 'unknown'}\n`);
  md.appendMarkdown(`- Window: ${formatWhen(r.start)} to ${formatWhen(r.end)}\n`);
  if (r.nodeList) md.appendMarkdown(`- Nodes: ${r.nodeList}\n`);
  if (r.flags?.length) md.appendMarkdown(`- Flags: ${r.flags.join(', ')}\n`);
  return md;
}

function describeSeconds(s: number): string {
  if (!Number.isFinite(s)) return vscode.l10n.t('no limit');
  const parts: string[] = [];
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (d) parts.push(`${d} day${d > 1 ? 's' : ''}`);
  if (h) parts.push(`${h} h`);
  if (m) parts.push(`${m} min`);
  return parts.join(' ') || '0 min';
}
