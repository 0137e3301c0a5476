import { syncSuite } from './syncCases';

syncSuite('v2');
