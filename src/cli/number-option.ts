// An option whose default is a number, shown in --help as commander shows a number,
// `(default: 32)`, not as the quoted string commander keeps it as (`(default: "32")`).
import { Option } from 'commander';

export function numberOption(flags: string, description: string, defaultValue: number): Option {
  return new Option(flags, description).default(String(defaultValue), String(defaultValue));
}
