/** Expected start per partition over API v2: estimateCases.ts. */
import { estimateSuite } from './estimateCases';

estimateSuite('v2');
