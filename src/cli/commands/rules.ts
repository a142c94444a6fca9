import type { Command } from 'commander';
import { RULE_IDS, ruleOf } from '../../detect/rules/index.js';
import type { Io } from '../io.js';

export function registerRules(program: Command, io: Io, done: (code: number) => void): void {
  program
    .command('rules')
    .description('list the violation catalogue: rule ids, severities and what each catches')
    .action(() => {
      for (const id of RULE_IDS) io.out(`${id.padEnd(30)} ${ruleOf(id).severity.padEnd(9)} ${ruleOf(id).summary}\n`);
      done(0);
    });
}
