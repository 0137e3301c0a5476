/** Mocha root hooks for the UI suite: the shared browser is closed once, after every file ran. */
import { closeWorkbench } from './workbench';

export const mochaHooks = {
  async afterAll(): Promise<void> {
    await closeWorkbench();
  },
};
