/** Storage facts (usage and limits, the scratch purge preview, Touch to Keep) over API v2: storageCases.ts. */
import { storageSuite } from './storageCases';

storageSuite('v2');
