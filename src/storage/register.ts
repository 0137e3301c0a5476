/**
 * Storage: usage and limits per file system (the Systems view's Storage group, asked for on
 * request) and the scratch purge preview. Both run through the core side-car runner.
 */
import * as vscode from 'vscode';
import { callback, fields, text } from '../common/commandArgs';
import { registerCommand } from '../common/commandWrapper';
import type { ExtensionServices } from '../common/services';
import { pickProfile, pickSystem } from '../common/systemPickers';
import { showPurgePreview, type PurgeChoices } from './purgePreview';
import type { StorageFacts } from './storageFacts';

export { StorageFacts } from './storageFacts';

export function registerStorage(services: ExtensionServices, storage: StorageFacts): vscode.Disposable {
  const log = services.log.withTag('storage');
  return vscode.Disposable.from(
    storage,
    // From the Storage group (its system), or the palette (pickers).
    registerCommand('firecrest.storage.refresh', log, async (arg?: unknown) => {
      const given = fields(arg, { profile: text, system: (v) => (typeof v === 'string' ? v : fields(v, { name: text }).name) });
      const profile = await pickProfile(services, given.profile);
      if (!profile) return undefined;
      const system = await pickSystem(services, profile, given.system);
      if (!system) return undefined;
      const report = await storage.refresh(profile, system);
      log.info(`${profile}/${system}: ${report.usages.map((u) => `${u.path} (${u.tool})`).join(', ') || 'no figures'}${report.missing.length ? `; none for ${report.missing.map((m) => m.path).join(', ')}` : ''}`);
      return report;
    }),
    registerCommand('firecrest.storage.showPurge', log, async (arg?: unknown, answers?: unknown) => {
      // Scripts and tests may answer the pickers and dialogs (functions, in this extension host).
      const choices: PurgeChoices = fields(answers, { pick: callback<NonNullable<PurgeChoices['pick']>>(), action: callback<NonNullable<PurgeChoices['action']>>(), downloadTo: callback<NonNullable<PurgeChoices['downloadTo']>>() });
      // A Storage row: its file system.
      const node = fields(arg, { profile: text, system: text, usage: (v) => fields(v, { path: text }).path });
      return showPurgePreview(services, node.usage ? { profile: node.profile, system: node.system, path: node.usage } : arg, choices);
    }),
  );
}
