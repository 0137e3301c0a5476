/**
 * Completion in `#SBATCH` lines: option names after `-`/`--` (with their description), and values
 * the cluster knows (partitions, reservations, accounts, groups) or sbatch fixes (mail types,
 * dependency types, open modes). QoS is not in the FirecREST API: nothing is offered for it.
 */
import * as vscode from 'vscode';
import { optionByShort, resolveLong, SBATCH_OPTIONS, type SbatchOption } from '../core/sbatch/options';
import { parseSbatchScript } from '../core/sbatch/parser';
import { DEPENDENCY_TYPES, formatTime, MAIL_TYPES } from '../core/sbatch/values';
import type { SbatchDocuments } from './documents';
import type { LiveSnapshot, SbatchLiveData } from './liveData';

export class SbatchCompletionProvider implements vscode.CompletionItemProvider {
  constructor(
    private readonly documents: SbatchDocuments,
    private readonly liveData: SbatchLiveData,
  ) {}

  async provideCompletionItems(doc: vscode.TextDocument, pos: vscode.Position): Promise<vscode.CompletionItem[] | undefined> {
    const before = doc.lineAt(pos.line).text.slice(0, pos.character);
    if (!before.startsWith('#SBATCH') || before.slice(7).includes('#')) return undefined;
    const script = this.documents.script(doc);
    if (script.firstCommandLine !== undefined && pos.line > script.firstCommandLine) return undefined;

    // A value: `--name=partial`, `--name partial`, `-xpartial`, `-x partial` (after the last comma).
    const long = /(?:^|\s)--([\w-]+)(?:=|\s+)([^\s=]*)$/.exec(before.slice(7));
    const short = /(?:^|\s)-([a-zA-Z])\s*([^\s-][^\s]*|)$/.exec(before.slice(7));
    const option = long ? resolveLong(long[1]).option : short ? optionByShort(short[1]) : undefined;
    if (option && option.arg !== 'none') {
      const partial = (long ?? short)![2];
      const item = partial.slice(partial.lastIndexOf(',') + 1);
      const range = new vscode.Range(pos.line, pos.character - item.length, pos.line, pos.character);
      return this.values(doc, option, range);
    }

    // An option name: after `-`/`--`, or right after `#SBATCH ` (the space is a trigger character).
    const name = /(?:^|\s)(--?[\w-]*)$/.exec(before.slice(7)) ?? (/^\s+$/.test(before.slice(7)) ? ['', ''] : null);
    if (!name) return undefined;
    const range = new vscode.Range(pos.line, pos.character - name[1].length, pos.line, pos.character);
    // Options the script already sets (with a value, on other lines) are not offered again: sbatch
    // would take only the last one.
    const present = new Set(parseSbatchScript(doc.getText()).directives.filter((d) => d.nameSpan.line !== pos.line && (!!d.value || d.option?.arg === 'none')).map((d) => d.name));
    return SBATCH_OPTIONS.filter((o) => !present.has(o.long)).flatMap((o, i) => {
      const items = [nameItem(o, `--${o.long}`, range, i)];
      if (o.short && name[1].length <= 2 && !name[1].startsWith('--')) items.push(nameItem(o, `-${o.short}`, range, i));
      return items;
    });
  }

  private async values(doc: vscode.TextDocument, option: SbatchOption, range: vscode.Range): Promise<vscode.CompletionItem[] | undefined> {
    const fixed = (words: readonly string[], detail: string) =>
      words.map((w, i) => Object.assign(new vscode.CompletionItem(w, vscode.CompletionItemKind.EnumMember), { range, detail, sortText: String(i).padStart(3, '0') }));
    switch (option.kind) {
      case 'mail-type':
        return fixed(MAIL_TYPES, vscode.l10n.t('mail type'));
      case 'open-mode':
        return fixed(['append', 'truncate'], vscode.l10n.t('open mode'));
      case 'dependency':
        return fixed([...DEPENDENCY_TYPES.map((t) => `${t}:`), 'singleton'], vscode.l10n.t('dependency type'));
      case 'partition':
      case 'reservation':
      case 'account':
        break;
      default:
        if (option.long !== 'gid') return undefined;
    }
    const live = await this.snapshot(doc);
    if (!live) return undefined;
    if (option.kind === 'partition') return partitionItems(live, range);
    if (option.kind === 'reservation') {
      return live.reservations.map((r) => Object.assign(new vscode.CompletionItem(r.name, vscode.CompletionItemKind.Value), {
        range,
        detail: `${r.state} · ${r.start.toISOString().slice(0, 16)} → ${r.end.toISOString().slice(0, 16)} UTC`,
      }));
    }
    if (option.kind === 'account') {
      return (live.userInfo?.accounts ?? []).map((a, i) => Object.assign(new vscode.CompletionItem(a.name, vscode.CompletionItemKind.Value), {
        range,
        detail: a.isDefault ? vscode.l10n.t('default account') : 'account',
        sortText: `${a.isDefault ? 0 : 1}${String(i).padStart(3, '0')}`,
      }));
    }
    const groups = live.userInfo ? [live.userInfo.group, ...live.userInfo.groups.filter((g) => g.name !== live.userInfo!.group.name)] : [];
    return groups.map((g) => Object.assign(new vscode.CompletionItem(g.name, vscode.CompletionItemKind.Value), { range, detail: `group ${g.id}` }));
  }

  /** The cached data, fetched now only when there is none yet (completion is a deliberate ask). */
  private async snapshot(doc: vscode.TextDocument): Promise<LiveSnapshot | undefined> {
    const target = await this.documents.target(doc.uri);
    if (!target || !this.liveData.canFetch(target.profile)) return undefined;
    return this.liveData.peek(target) ?? (await this.liveData.get(target));
  }
}

function nameItem(o: SbatchOption, label: string, range: vscode.Range, order: number): vscode.CompletionItem {
  const item = new vscode.CompletionItem({ label, description: o.placeholder }, vscode.CompletionItemKind.Property);
  item.range = range;
  // The description once (as the detail); the documentation only adds what the detail lacks.
  item.detail = o.description;
  if (o.short && label.startsWith('--')) item.documentation = new vscode.MarkdownString(vscode.l10n.t('Short form: `-{0}`', o.short));
  item.sortText = String(order).padStart(3, '0') + (label.startsWith('--') ? 'a' : 'b');
  item.filterText = label;
  if (o.arg === 'required') {
    item.insertText = label.startsWith('--') ? `${label}=` : `${label} `;
    // Open the value list right away when the cluster or sbatch knows the values.
    if (['partition', 'reservation', 'account', 'mail-type', 'open-mode', 'dependency'].includes(o.kind)) {
      item.command = { command: 'editor.action.triggerSuggest', title: vscode.l10n.t('values') };
    }
  }
  return item;
}

function partitionItems(live: LiveSnapshot, range: vscode.Range): vscode.CompletionItem[] {
  return live.partitions.map((p) => {
    const item = new vscode.CompletionItem(p.name, vscode.CompletionItemKind.Value);
    item.range = range;
    const facts = [p.isDefault ? 'default' : undefined, p.state || undefined, p.maxTimeSeconds !== undefined ? `max ${formatTime(p.maxTimeSeconds)}` : undefined, p.totalNodes !== undefined ? `${p.totalNodes} nodes` : undefined];
    item.detail = facts.filter(Boolean).join(' · ');
    item.sortText = `${p.isDefault ? 0 : 1}${p.name}`;
    return item;
  });
}
