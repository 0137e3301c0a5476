import { agentToolSuite } from './agentToolCases';

agentToolSuite('v1');
