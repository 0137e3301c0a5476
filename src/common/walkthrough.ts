/**
 * Ticks the steps of the Get Started walkthrough when the user reaches them, by whatever path (a
 * notification's button, the Jobs view, the palette, a `firecrest://` folder opened at start-up).
 * VS Code's own completion events miss most of these: a step whose `onContext` key is already true
 * when the walkthrough registers its steps (lazily, when a Welcome page first opens) never ticks,
 * and `onCommand` sees only commands run through the workbench, not one an extension runs.
 * `welcome.markStepComplete` records the step as done whether or not its page has registered it yet.
 */
import * as vscode from 'vscode';
import { Disposable } from './lifecycle';
import type { ConnectionService, Log, WalkthroughStep, WalkthroughSteps } from './services';
import { messageOf } from '../core/errors';

export const WALKTHROUGH_ID = 'gettingStarted';

export class WalkthroughProgress extends Disposable implements WalkthroughSteps {
  private readonly done = new Set<WalkthroughStep>();

  constructor(private readonly extensionId: string, connections: ConnectionService, private readonly log: Log) {
    super();
    const connected = (): void => {
      if (connections.connections().some((c) => c.state === 'connected')) this.reached('connect');
    };
    const remoteFolder = (): void => {
      if (vscode.workspace.workspaceFolders?.some((f) => f.uri.scheme === 'firecrest')) this.reached('openHome');
    };
    this._register(connections.onDidChange(connected));
    this._register(vscode.workspace.onDidChangeWorkspaceFolders(remoteFolder));
    connected();
    remoteFolder();
  }

  reached(step: WalkthroughStep): void {
    if (this.done.has(step)) return;
    this.done.add(step);
    const id = `${this.extensionId}#${WALKTHROUGH_ID}#${step}`;
    // Before the page registered its steps, VS Code keeps the progress and then says it does not
    // know the step: the step shows as done once the page opens.
    void Promise.resolve(vscode.commands.executeCommand('welcome.markStepComplete', id)).then(undefined, (e: unknown) =>
      this.log.debug(`walkthrough step ${step}: ${messageOf(e)}`));
  }
}
