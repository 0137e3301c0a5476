/** The one command wrapper lives in src/common so every feature folder can use it. */
export { registerCommand, reportError, type CommandHandler } from '../common/commandWrapper';
