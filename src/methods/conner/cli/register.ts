/** CONNER's own commands: generate knowledge, score it, and the paper's two use cases (select demonstrations, best-of sampling). */
import type { Command } from 'commander';
import type { CliHost } from '../../method-cli.js';
import { registerConnerCommands } from './conner-commands.js';

export function register(program: Command, host: CliHost): void {
  registerConnerCommands(program, host);
}
