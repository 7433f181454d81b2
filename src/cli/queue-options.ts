// The queue filters shared by kb review and kb due: --tag, --deck, --limit.
import { Option, type Command } from 'commander';
import { countOption } from './number-option.ts';

export interface QueueFlags {
  tag?: string;
  deck?: string;
  limit?: string;
}

export function addQueueOptions(command: Command): Command {
  return command
    .addOption(new Option('--tag <tag>', 'only cards with this tag (or a sub-tag: vllm matches vllm/paged)'))
    .addOption(new Option('--deck <deck>', 'only cards of this deck (a notes/ topic or a cards/ file name)'))
    .addOption(new Option('--limit <n>', 'at most n cards'));
}

export function queueRequest(flags: QueueFlags): { tag?: string; deck?: string; limit: number | null } {
  let limit: number | null = null;
  if (flags.limit !== undefined) {
    limit = countOption('--limit', flags.limit, 'cards');
  }
  return { tag: flags.tag, deck: flags.deck, limit };
}
