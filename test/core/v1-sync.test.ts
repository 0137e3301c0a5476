import { syncSuite } from './syncCases';

syncSuite('v1');
