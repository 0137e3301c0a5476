/**
 * The composition root: builds the shared objects in order and pushes each into
 * context.subscriptions. No logic here, and nothing slow: the network is first touched when a view
 * or command needs a client, or by the deferred first connect after activation.
 */
import * as l10n from '@vscode/l10n';
import * as vscode from 'vscode';
import { registerAccountsProvider } from './commands/connection/accountsProvider';
import { registerConnectionCommands } from './commands/connection/index';
import { registerJobCommands } from './jobs/register';
import { registerSystemsCommands } from './commands/systems/index';
import { registerFileCommands } from './commands/files/index';
import { registerV1Commands } from './commands/siteTools';
import type { FirecrestExtensionApi } from './common/api';
import { BOOTSTRAP_ENV, importBootstrap } from './common/bootstrap';
import { createClientFactory } from './connections/clientFactory';
import { Connections } from './connections/connections';
import { ConnectionContextKeys, trackRemoteWorkspace } from './common/contextKeys';
import { TestSeam } from './common/testSeam';
import { WalkthroughProgress } from './common/walkthrough';
import { loadedBundles } from './common/lazyBundles';
import { OutputLog } from './common/log';
import type { ExtensionServices } from './common/services';
import { JobDependencies } from './common/jobDependencies';
import { JobFollowUps } from './common/jobFollowUps';
import { JobSubmitter } from './common/jobSubmitter';
import { ConnectionStatusBar } from './common/statusBar';
import { TransferEvents } from './common/transferEvents';
import { UploadResumeStore } from './common/uploadResumeStore';
import { JobsView } from './views/jobs/jobsView';
import { SystemsView } from './views/systems/systemsView';
import { FirecrestFileSystemProvider } from './fs/provider';
import { registerFileSystem } from './fs/register';
import { stagedLargeFiles } from './fs/stagedLargeFiles';
import { registerSbatch } from './sbatch/register';
import { registerSearch } from './search/register';
import { registerSync } from './sync/register';
import { registerAgents } from './agents/register';
import { registerStorage, StorageFacts } from './storage/register';
import { registerNotebooks } from './notebooks/register';
import { registerAccounting } from './webviews/accounting/register';
import { registerTransfers } from './webviews/transfers/register';
import { messageOf } from './core/errors';

export async function activate(context: vscode.ExtensionContext): Promise<FirecrestExtensionApi> {
  const started = performance.now();
  // The modules free of `vscode` (testable in plain Node) word things through @vscode/l10n: the same bundle.
  l10n.config({ contents: vscode.l10n.bundle ?? {} });
  const { log, channel } = OutputLog.create();
  context.subscriptions.push(channel);

  const connections = new Connections(context.secrets, log.withTag('connections'), log.secrets, createClientFactory());
  context.subscriptions.push(connections);
  await connections.reload();
  // Only under `npm start` (the variable is unset otherwise): the connection must exist before a
  // firecrest:// workspace folder or a view asks for it.
  let openFirst: string | undefined;
  await importBootstrap(process.env[BOOTSTRAP_ENV], connections, log.withTag('bootstrap'), (uri) => (openFirst = uri)).catch((e: unknown) =>
    log.warn(`bootstrap import failed: ${messageOf(e)}`),
  );

  const statusBar = new ConnectionStatusBar(connections, 'firecrest.showLog');
  context.subscriptions.push(statusBar, new ConnectionContextKeys(connections), trackRemoteWorkspace());
  context.subscriptions.push(registerConnectionCommands(connections, log.withTag('commands')));
  const accounts = registerAccountsProvider(connections, log.withTag('accounts'));
  context.subscriptions.push(accounts);

  const walkthrough = new WalkthroughProgress(context.extension.id, connections, log.withTag('walkthrough'));
  context.subscriptions.push(walkthrough);
  const testSeam = new TestSeam();
  const services: ExtensionServices = { context, log, connections, dependencies: new JobDependencies(), followUps: new JobFollowUps(), submitter: new JobSubmitter(), walkthrough, testSeam };
  // Features: each registers itself with the shared services, one line each.
  const storage = new StorageFacts(services);
  const systemsView = new SystemsView(services, storage);
  const jobsView = new JobsView(services);
  context.subscriptions.push(systemsView, jobsView, registerSystemsCommands(services, systemsView), registerJobCommands(services, jobsView));
  context.subscriptions.push(registerV1Commands(services, systemsView, jobsView));
  // Transfers (editor saves, upload/download and archive commands) for the Transfer Centre; finished ones kept in global state.
  const transferEvents = new TransferEvents({ store: context.globalState });
  context.subscriptions.push(transferEvents);
  const uploadResume = new UploadResumeStore(context.globalState, context.secrets);
  // Remote files: the provider's refresh goes to the file commands (they may not import src/fs).
  const remoteFiles = registerFileSystem(services, stagedLargeFiles(connections, transferEvents));
  if (remoteFiles.provider instanceof FirecrestFileSystemProvider) context.subscriptions.push(remoteFiles.provider.publishTo(transferEvents));
  context.subscriptions.push(remoteFiles, registerFileCommands(services, remoteFiles, { events: transferEvents, resume: uploadResume }));
  context.subscriptions.push(registerTransfers(services, transferEvents, () => uploadResume.list()));
  context.subscriptions.push(registerSbatch(services));
  context.subscriptions.push(registerAccounting(services));
  context.subscriptions.push(registerSearch(services, remoteFiles.provider.onDidChangeFile));
  context.subscriptions.push(registerSync(services));
  context.subscriptions.push(registerAgents(services));
  context.subscriptions.push(registerStorage(services, storage));
  context.subscriptions.push(registerNotebooks(services));
  // Last: every feature has handed in what tests may look at.
  context.subscriptions.push(testSeam.register(context.extensionMode));

  const activationMs = performance.now() - started;
  // The client, the accounting panel and zod are bundles of their own that nothing above may load.
  const bundlesAtActivation = loadedBundles();
  log.debug(`activated in ${activationMs.toFixed(1)} ms (${bundlesAtActivation.join(', ')})`);
  const ready = startUp(connections);
  // `npm start`: hello.sbatch open, and the walkthrough beside it.
  if (openFirst) void showFirst(openFirst, log);
  return {
    connections,
    statusBarText: () => statusBar.text,
    activationMs,
    bundlesAtActivation,
    ready,
    importBootstrap: (file) => importBootstrap(file, connections, log.withTag('bootstrap')),
    logUri: context.logUri,
    globalStorageUri: context.globalStorageUri,
    fileSystem: remoteFiles.provider,
    accounts: accounts.provider,
  };
}

/** After activation, off its critical path: connect the signed-in profiles once. */
async function startUp(connections: Connections): Promise<void> {
  await new Promise((r) => setTimeout(r, 0));
  // Signed-in profiles show "connecting" until their first client exists; make that true now.
  await connections.connectPending();
}

async function showFirst(uri: string, log: OutputLog): Promise<void> {
  try {
    await vscode.commands.executeCommand('workbench.action.openWalkthrough', 'firecrest-community.firecrest-vscode#gettingStarted', false);
    await vscode.window.showTextDocument(vscode.Uri.parse(uri), { preview: false, viewColumn: vscode.ViewColumn.One });
  } catch (e) {
    log.warn(`could not open ${uri}: ${messageOf(e)}`);
  }
}

export function deactivate(): void {
  // Everything is in context.subscriptions; VS Code disposes it.
}
