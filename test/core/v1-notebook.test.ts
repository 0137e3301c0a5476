/** The notebook kernel over API v1 (its script upload, utilities/view; interrupt by request file): notebookCases.ts. */
import { notebookSuite } from './notebookCases';

notebookSuite('v1');
