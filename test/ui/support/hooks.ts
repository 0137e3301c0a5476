/**
 * Mocha root hooks for the UI suite: a screenshot of every failed test (test-results/failed-*.png),
 * and the shared browser closed once, after every file ran.
 */
import type { Context } from 'mocha';
import { closeWorkbench, isWorkbenchOpen, openWorkbench, screenshot } from './workbench';

export const mochaHooks = {
  async afterEach(this: Context): Promise<void> {
    const test = this.currentTest;
    if (test?.state !== 'failed' || !isWorkbenchOpen()) return;
    const name = `failed-${test.fullTitle().replace(/[^A-Za-z0-9]+/g, '-').slice(0, 80)}`;
    const path = await screenshot(await openWorkbench(), name).catch(() => undefined);
    if (path) console.log(`      screenshot: ${path}`);
  },
  async afterAll(): Promise<void> {
    await closeWorkbench();
  },
};
