/** The notebook kernel over API v2: notebookCases.ts. */
import { notebookSuite } from './notebookCases';

notebookSuite('v2');
