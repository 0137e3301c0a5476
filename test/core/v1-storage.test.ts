/** Storage facts over API v1: the same side-car jobs through v1's script upload and `utilities/view` (storageCases.ts). */
import { storageSuite } from './storageCases';

storageSuite('v1');
