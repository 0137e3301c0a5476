import { arraySuite } from './arrayCases';

arraySuite('v1');
