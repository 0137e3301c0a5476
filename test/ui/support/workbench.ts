/**
 * Driving the real workbench (code-server in Chromium) from UI tests. scripts/run-ui-tests.mjs
 * starts code-server and the gateway and sets FIRECREST_UI_URL; every test file shares ONE browser
 * page (one extension host, already connected through the bootstrap), opened by `openWorkbench()`.
 */
import { mkdirSync, rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core';

export const RESULTS_DIR = resolve(__dirname, '../../../test-results');

let session: Promise<{ context: BrowserContext; page: Page; profile: string }> | undefined;

/** The shared workbench page, loaded and with the FirecREST extension activated. */
export async function openWorkbench(): Promise<Page> {
  session ??= start();
  return (await session).page;
}

/** True once `openWorkbench()` has been called (the failure hook screenshots only then). */
export function isWorkbenchOpen(): boolean {
  return session !== undefined;
}

/** Closes the browser (the root `after` hook does this once for the whole run). */
export async function closeWorkbench(): Promise<void> {
  const s = await session?.catch(() => undefined);
  session = undefined;
  if (!s) return;
  await s.context.close().catch(() => undefined);
  rmSync(s.profile, { recursive: true, force: true });
}

async function start(): Promise<{ context: BrowserContext; page: Page; profile: string }> {
  const url = process.env.FIRECREST_UI_URL;
  if (!url) throw new Error('FIRECREST_UI_URL is not set: run the UI suite through `npm run test:ui`');
  const profile = mkdtempSync(join(tmpdir(), 'f7t-ui-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1400, height: 900 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  if (process.env.FIRECREST_UI_VERBOSE) page.on('console', (m) => console.error(`[browser:${m.type()}] ${m.text()}`));
  await page.goto(url);
  await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
  // The status bar item appears once the extension has activated and read its profiles.
  await statusBarItem(page).waitFor({ timeout: 60_000 });
  return { context, page, profile };
}

/** The FirecREST connection item in the status bar. */
export function statusBarItem(page: Page): Locator {
  return page.locator('.statusbar-item').filter({ hasText: 'FirecREST' }).first();
}

/**
 * Runs a command from the palette by its title, e.g. `FirecREST: Show Log`. The palette reads the
 * commands' `when` clauses as it opens: a command whose context key is set a moment later (a
 * connection that has just connected, on a loaded machine) shows only in a palette opened after
 * that. So the palette is opened again until the command is offered, up to `timeoutMs`.
 */
export async function runCommand(page: Page, title: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const input = page.locator('.quick-input-widget input');
  // The row of exactly this command: the palette also offers longer titles that contain it
  // ("FirecREST: Submit Job with Options…" for "FirecREST: Submit Job"), and lists the recently
  // used first, so the first row is not always the one asked for (CI: Enter ran the longer one).
  const exact = new RegExp(`^${title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
  const row = page.locator('.quick-input-list .monaco-list-row').filter({ has: page.locator('.label-name', { hasText: exact }) }).first();
  for (;;) {
    // Keys typed while a webview (the accounting panel) has the focus go to its frame, which passes
    // them on to the workbench only as it pleases: F1 can get lost (CI28). The workbench's own
    // document takes them.
    await page.evaluate('document.activeElement && document.activeElement.blur && document.activeElement.blur()');
    await page.keyboard.press('Escape');
    // F1, not the title bar's command center: that opens Quick Open in file mode first, which
    // caches the workspace's file list, and a file written later is then missing from Ctrl+P.
    await page.keyboard.press('F1');
    await input.waitFor();
    // While a dialog is up (or a page that opened a moment ago still holds the focus), the
    // workbench is inert and the palette takes no typing: open it again, as for a missing command.
    const typed = await input.fill(`>${title}`, { timeout: 5_000 }).then(() => true, () => false);
    const offered = typed && (await row.waitFor({ timeout: 5_000 }).then(() => true, () => false));
    if (offered) break;
    if (Date.now() > deadline) throw new Error(`the command palette did not offer "${title}" within ${timeoutMs / 1000} s`);
  }
  await row.click();
}

/**
 * Opens a workspace file in an editor with Quick Open, by its full path: Quick Open shows the file
 * at once. By its name it would search the workspace, and a search typed while Quick Open reloads
 * its file list is answered from the list of its previous opening: a file written since is missing
 * ("No matching results", CI: the notebook test's Ctrl+P came before the batch script's).
 */
export async function openFile(page: Page, path: string): Promise<void> {
  const name = path.slice(path.lastIndexOf('/') + 1);
  await page.keyboard.press('Escape');
  await page.keyboard.press('Control+P');
  await page.locator('.quick-input-widget input').fill(path);
  await page.locator('.quick-input-list .monaco-list-row').filter({ hasText: name }).first().click({ timeout: 30_000 });
}

/** Opens a view container of the activity bar by its title (e.g. `FirecREST`). */
export async function openViewContainer(page: Page, title: string): Promise<Locator> {
  const item = page.locator(`.activitybar .action-item a[aria-label^="${title}"]`).first();
  await item.waitFor({ timeout: 15_000 });
  const selected = await item.locator('xpath=..').getAttribute('aria-selected');
  if (selected !== 'true') await item.click();
  const pane = page.locator('.sidebar');
  await pane.locator('.composite.title').filter({ hasText: title.toUpperCase() }).first().waitFor({ timeout: 15_000 }).catch(() => undefined);
  return pane;
}

/** The header and body of a view in the side bar, by its name (e.g. `Systems`). */
export function view(page: Page, name: string): { header: Locator; body: Locator } {
  const pane = page.locator('.sidebar .pane').filter({ has: page.locator('.pane-header', { hasText: name }) }).first();
  return { header: pane.locator('.pane-header'), body: pane.locator('.pane-body') };
}

/** Expands a side bar view whose header is collapsed (an earlier test may have collapsed it). */
export async function expandView(page: Page, name: string): Promise<void> {
  const header = view(page, name).header;
  await header.waitFor();
  if ((await header.getAttribute('aria-expanded')) === 'false') await header.click();
}

/** Picks the quick pick row containing `label` if a quick pick shows up within `timeoutMs`. */
export async function pickIfAsked(page: Page, label: string, timeoutMs = 3000): Promise<boolean> {
  const row = page.locator('.quick-input-widget .quick-input-list .monaco-list-row').filter({ hasText: label }).first();
  try {
    await row.waitFor({ timeout: timeoutMs });
  } catch {
    return false;
  }
  await row.click();
  return true;
}

/** Tree rows of a view (their visible labels). */
export async function treeRows(page: Page, viewName: string): Promise<string[]> {
  return view(page, viewName).body.locator('.monaco-list-row').allInnerTexts();
}

/** Saves a PNG into test-results/ and returns its path. */
export async function screenshot(page: Page, name: string, target?: Locator): Promise<string> {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const path = join(RESULTS_DIR, `${name}.png`);
  await (target ?? page).screenshot({ path });
  return path;
}
