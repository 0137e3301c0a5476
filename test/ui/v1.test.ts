/**
 * A FirecREST API v1 connection as a user sees it: added through the six prompts against the
 * gateway's v1 URL, a reservation created through the v1 form (its live validation on screen),
 * the connection's Reservations in the Systems tree with the management menu, and the delete.
 * Screenshots in test-results/v1-*.png.
 */
import { execFileSync } from 'node:child_process';
import type { Page } from 'playwright-core';
import { expandView, openViewContainer, openWorkbench, pickIfAsked, runCommand, screenshot, view } from './support/workbench';

const NAME = 'ui-v1';
const DEMO = process.env.FIRECREST_UI_PROFILE ?? 'local';

/**
 * The account to type into the form on real Slurm: one slurmdbd knows (v1 has no account list,
 * so the form proposes the primary group). Undefined elsewhere: the proposal is accepted.
 */
function slurmAccount(): string | undefined {
  const gw = process.env.FIRECREST_GATEWAY ? (JSON.parse(process.env.FIRECREST_GATEWAY) as { scheduler?: string; user?: string }) : undefined;
  if (gw?.scheduler !== 'slurm' || !gw.user) return undefined;
  const out = execFileSync('sacctmgr', ['--noheader', '--parsable2', 'show', 'user', gw.user, 'format=defaultaccount'], { encoding: 'utf8' });
  return out.trim().split('\n')[0] || undefined;
}

function gatewayV1(): string | undefined {
  const gw = process.env.FIRECREST_GATEWAY ? (JSON.parse(process.env.FIRECREST_GATEWAY) as { v1?: string }) : undefined;
  return gw?.v1;
}

/** The Systems row whose label is exactly `label` (first match). */
function row(page: Page, label: string) {
  return view(page, 'Systems').body.locator('.monaco-list-row').filter({ has: page.locator('.label-name', { hasText: new RegExp(`^${label.replace(/[.$]/g, '\\$&')}$`) }) }).first();
}

/**
 * Runs a row's context menu item and confirms its modal dialog. A tree refresh can re-render the
 * row while the menu opens, which closes the menu the click was aimed at: then it is tried again.
 */
async function menuThenConfirm(page: Page, target: ReturnType<typeof row>, item: string, confirm: string): Promise<void> {
  const menu = page.locator('.context-view .monaco-menu');
  const button = page.locator('.monaco-dialog-box').getByRole('button', { name: confirm });
  for (let attempt = 1; ; attempt++) {
    await target.click({ button: 'right' });
    // Hover focuses the item and Enter runs it: a mouse click on a menu that has just been
    // re-opened is sometimes swallowed by the menu's guard against the opening mouse-up.
    await menu.getByText(item).first().hover();
    await page.keyboard.press('Enter');
    try {
      await button.waitFor({ timeout: 5_000 });
      break;
    } catch (e) {
      if (attempt >= 3) throw e;
      await page.keyboard.press('Escape');
    }
  }
  await button.click();
}

async function setExpanded(page: Page, label: string, expanded: boolean): Promise<void> {
  const r = row(page, label);
  await r.waitFor({ timeout: 30_000 });
  if (((await r.getAttribute('aria-expanded')) === 'true') !== expanded) await r.click();
  const handle = await r.elementHandle();
  if (expanded) await page.waitForFunction((el) => el?.getAttribute('aria-expanded') === 'true', handle, { timeout: 30_000 });
  else await page.waitForFunction((el) => el?.getAttribute('aria-expanded') !== 'true', handle, { timeout: 30_000 });
}

describe('API v1 connection (UI)', () => {
  const rsv = `ui_${Math.random().toString(36).slice(2, 7)}`;
  // A reservation left behind by a failed run would keep the node busy for the next run's window
  // on real Slurm (its state outlives the run): it goes whatever the outcome.
  after(() => {
    if (slurmAccount() === undefined) return;
    try {
      execFileSync('scontrol', ['delete', `ReservationName=${rsv}`], { stdio: 'ignore' });
    } catch {
      // Deleted by the test itself.
    }
  });

  it('adds a v1 connection, creates a reservation through the form and shows it in the Systems tree', async function () {
    const url = gatewayV1();
    if (!url || !process.env.FIRECREST_CLIENT_SECRET) return this.skip();
    const system = process.env.FIRECREST_SYSTEM ?? 'cluster';
    const page = await openWorkbench();
    const widget = page.locator('.quick-input-widget');
    const step = async (n: number, of: number) => widget.locator('.quick-input-title').filter({ hasText: `(${n}/${of})` }).waitFor();
    const answer = async (n: number, of: number, text?: string) => {
      await step(n, of);
      if (text !== undefined) await widget.locator('input').fill(text);
      await page.keyboard.press('Enter');
    };
    // The reservation form's boxes (showInputBox) take Enter only once the extension host has
    // judged the value valid, and VS Code then says so under the box: pressed sooner, on a loaded
    // machine, it was dropped and the form waited at its last step.
    // The hint must be this box's (it names the box's prompt): the previous box's hint can still
    // be on screen when the next box opens, and an Enter pressed on it was dropped (CI).
    const prompts = ['Reservation name', 'Account the reservation is for', 'Number of nodes', 'Node type', 'Start,', 'End,'];
    const accepting = (n: number) => widget.locator('.quick-input-message').filter({ hasText: prompts[n - 1] }).filter({ hasText: "Press 'Enter' to confirm" });
    const formAnswer = async (n: number, of: number, text?: string) => {
      await step(n, of);
      if (text !== undefined) await widget.locator('input').fill(text);
      await accepting(n).waitFor({ timeout: 30_000 });
      await page.keyboard.press('Enter');
    };

    await runCommand(page, 'FirecREST: Add Connection…');
    await answer(1, 7, NAME);
    await answer(2, 7, url);
    await answer(3, 7, 'v1');
    await answer(4, 7, 'Client credentials');
    await answer(5, 7, process.env.FIRECREST_TOKEN_URL ?? '');
    await answer(6, 7, process.env.FIRECREST_CLIENT_ID ?? '');
    await answer(7, 7, process.env.FIRECREST_CLIENT_SECRET ?? '');
    await page.locator('.notifications-toasts').getByText(`Connection ${NAME} added`).first().waitFor({ timeout: 30_000 });

    // The form: a name the server would refuse is flagged while typing.
    await runCommand(page, 'FirecREST: Create Reservation…');
    await pickIfAsked(page, system);
    await step(1, 6);
    await widget.locator('input').fill('Course 2026');
    await widget.locator('.quick-input-message').filter({ hasText: 'lower-case' }).waitFor({ timeout: 10_000 });
    await screenshot(page, 'v1-reservation-form-validation');
    await formAnswer(1, 6, rsv);
    await formAnswer(2, 6, slurmAccount()); // the proposed account, or one slurmdbd knows
    for (let n = 3; n <= 6; n++) await formAnswer(n, 6); // nodes, node type, start and end as proposed
    await page.locator('.notifications-toasts').getByText(`Reservation ${rsv} created`).first().waitFor({ timeout: 30_000 });

    await openViewContainer(page, 'FirecREST');
    await expandView(page, 'Systems');
    // Two connections: one node each. Fold the demo one so the v1 system's rows are the only ones.
    await setExpanded(page, DEMO, false);
    await setExpanded(page, NAME, true);
    await setExpanded(page, system, true);
    await setExpanded(page, 'Reservations', true);
    const created = row(page, rsv);
    await created.waitFor({ timeout: 30_000 });
    await screenshot(page, 'v1-systems-reservations', page.locator('.part.sidebar'));

    const menu = page.locator('.context-view .monaco-menu');
    await created.click({ button: 'right' });
    await menu.getByText('Update Reservation…').first().waitFor();
    await screenshot(page, 'v1-reservation-context-menu');
    await page.keyboard.press('Escape');
    await menuThenConfirm(page, created, 'Delete Reservation', 'Delete');
    await page.locator('.notifications-toasts').getByText(`Reservation ${rsv} deleted`).first().waitFor({ timeout: 30_000 });
    await row(page, rsv).waitFor({ state: 'detached', timeout: 30_000 });

    // Leave the workbench as it was: the v1 connection removed (one connection again: its systems at the top).
    const conn = row(page, NAME);
    await menuThenConfirm(page, conn, 'Remove Connection', 'Remove');
    await conn.waitFor({ state: 'detached', timeout: 15_000 });
  });
});
