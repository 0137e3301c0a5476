/** Expected start per partition over API v1 (its script upload and utilities/view): estimateCases.ts. */
import { estimateSuite } from './estimateCases';

estimateSuite('v1');
