/**
 * Which connection and which system a palette command acts on, when no tree node or argument says:
 * each step skipped when there is only one choice.
 */
import * as vscode from 'vscode';
import type { ExtensionServices } from './services';

export async function pickProfile(services: ExtensionServices, given?: string): Promise<string | undefined> {
  if (given) return given;
  const all = services.connections.connections();
  if (all.length === 0) throw new Error(vscode.l10n.t('No FirecREST connection: add one with "FirecREST: Add Connection…".'));
  if (all.length === 1) return all[0].profile.name;
  const pick = await vscode.window.showQuickPick(
    all.map((c) => ({ label: c.profile.name, description: c.profile.url })),
    { placeHolder: vscode.l10n.t('Which FirecREST connection?') },
  );
  return pick?.label;
}

export async function pickSystem(services: ExtensionServices, profile: string, given?: string): Promise<string | undefined> {
  if (given) return given;
  const systems = await services.connections.systems(profile);
  if (systems.length === 1) return systems[0].name;
  const preferred = services.connections.connections().find((c) => c.profile.name === profile)?.profile.defaultSystem;
  const items = systems
    .map((s) => ({ label: s.name, description: s.name === preferred ? 'default' : s.health.status }))
    .sort((a, b) => Number(b.label === preferred) - Number(a.label === preferred));
  const pick = await vscode.window.showQuickPick(items, { placeHolder: vscode.l10n.t('Which system?') });
  return pick?.label;
}
