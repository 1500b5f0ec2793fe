/**
 * The reliability method's own commands: build the data sets (`data`), run the pipeline one step
 * at a time (`ask`, `judge`, `consistency`) and measure a judge against human labels
 * (`judge check`). `llmkb eval` runs the whole method through the generic runner.
 */
import type { Command } from 'commander';
import type { CliHost } from '../../method-cli.js';
import { registerDataCommands } from './data-commands.js';
import { registerJudgeCheckCommand } from './judge-check-command.js';
import { registerStageCommands } from './stage-commands.js';

export function register(program: Command, host: CliHost): void {
  registerDataCommands(program, host);
  registerStageCommands(program, host);
  registerJudgeCheckCommand(program, host);
}
