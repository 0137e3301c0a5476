/**
 * Search on Cluster and Go to File on Cluster: the commands, wired to the search controller (the
 * one running search), the Cluster Search view and the file indexes. Each part is a module of its
 * own beside this file.
 */
import * as vscode from 'vscode';
import type { FirecrestClient } from '../core/client';
import { fields, text, uri as uriArg, whole } from '../common/commandArgs';
import { registerCommand } from '../common/commandWrapper';
import type { ExtensionServices } from '../common/services';
import { FileIndexStore } from './fileIndex';
import { goToFileOnCluster } from './goToFile';
import { SearchResultsView } from './resultsView';
import { askSearch, EMPTY_SEARCH, searchQuery } from './searchBox';
import { SearchController } from './searchController';
import { initialSearch, pickSearchFolder } from './searchFolder';
import { searchPartition, searchSettings } from './searchSettings';

export { searchPartition } from './searchSettings';

/** `fileChanges`: the `firecrest:` file system's events, which keep Go to File's indexes current. */
export function registerSearch(services: ExtensionServices, fileChanges?: vscode.Event<readonly vscode.FileChangeEvent[]>): vscode.Disposable {
  const log = services.log.withTag('search');
  const view = new SearchResultsView();
  const partitionFor = async (client: FirecrestClient, system: string) => {
    const s = searchSettings();
    return searchPartition(s.partition, s.partition ? [] : await client.partitions(system).catch(() => []));
  };
  const indexes = new FileIndexStore(services, log, partitionFor, fileChanges);
  const search = new SearchController(services, view, partitionFor, log);
  const disposable = vscode.Disposable.from(
    search,
    indexes,
    view,
    registerCommand('firecrest.goToFileOnCluster', log, (arg?: unknown) => goToFileOnCluster(indexes, log, arg)),
    registerCommand('firecrest.searchOnCluster', log, async (arg?: unknown) => {
      // Scripts and tests: { folder, query } searches without asking.
      const given = fields(arg, { folder: text, query: searchQuery });
      const ref = await pickSearchFolder(given.query ? given.folder : arg);
      if (!ref) return undefined;
      const state = given.query ? { ...EMPTY_SEARCH, ...given.query } : await askSearch(ref.basename || ref.path, initialSearch(services.context.workspaceState));
      if (!state) return undefined;
      return search.run(ref, state);
    }),
    registerCommand('firecrest.search.cancel', log, () => search.cancel(vscode.l10n.t('Cancelled.'))),
    registerCommand('firecrest.search.clear', log, () => {
      search.cancel();
      view.reset(undefined);
    }),
    registerCommand('firecrest.search.rerun', log, () => (search.last ? search.run(search.last.ref, search.last.state) : vscode.commands.executeCommand('firecrest.searchOnCluster'))),
    registerCommand('firecrest.search.openResult', log, async (file: unknown, line: unknown, start: unknown, end: unknown) => {
      const uri = uriArg(file);
      if (!uri) return;
      const l = Math.max(0, (whole(line) ?? 1) - 1);
      const range = new vscode.Range(l, whole(start) ?? 0, l, whole(end) ?? 0);
      await vscode.window.showTextDocument(uri, { selection: range, preview: true });
    }),
  );
  services.testSeam.expose('searchView', () => view.snapshot());
  // The folder's index as Go to File has it (`build`: list it on the cluster first), and the count of index jobs so far.
  services.testSeam.expose('fileIndex', async (folder: string, build = false) => {
    const root = vscode.Uri.parse(folder);
    const index = build ? await indexes.build(root) : await indexes.stored(root);
    return { files: index?.files, builtAt: index?.builtAt, builds: indexes.builds };
  });
  return disposable;
}
