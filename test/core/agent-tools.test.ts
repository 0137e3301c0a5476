import { agentToolSuite } from './agentToolCases';

agentToolSuite('v2');
