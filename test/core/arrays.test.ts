import { arraySuite } from './arrayCases';

arraySuite('v2');
