/**
 * kb's exit codes, one table for every command (documented in `kb --help` and the README).
 * Scripts can tell "you asked for something wrong" (1) from "this needs a terminal" (2).
 */
export const ExitCode = {
  /** Done, including "nothing due", "nothing to undo", too little history to optimize, and a lab run whatever its verdict. */
  ok: 0,
  /** A user error: a bad flag or value, an unknown tag, deck, card or lab, a file with errors. */
  userError: 1,
  /** An interactive command (kb review, kb quiz, kb add --edit) was started without a terminal. */
  noTerminal: 2,
  /** Interrupted by Ctrl-C (128 + SIGINT, as shells report it); what was done is kept. */
  interrupted: 130,
} as const;

/** The table as `kb --help` and the README print it. */
export const EXIT_CODES_HELP = `Exit codes:
  0    done (also "nothing due", "nothing to undo", kb optimize with too
       little history, any lab verdict, output cut short by | head)
  1    user error: a bad flag or value, an unknown tag, deck, card or lab,
       files with errors, a machine fault (full or read-only disk, locked db,
       a lab's --endpoint server gone mid-run)
  2    kb review, kb quiz or kb add --edit without a terminal (kb due,
       kb rate, kb quiz --json, kb add --answer)
  130  interrupted by Ctrl-C (a lab run, a calibration or kb quiz --json
       also by SIGTERM); ratings, answers and lab runs already made are kept`;

/** An error caused by the user's input or environment: printed as one line, no stack trace. */
export class UserError extends Error {
  readonly exitCode: number;
  /** `cause`: the fault of the machine behind it (a damaged database), whose trace KB_DEBUG=1 prints. */
  constructor(message: string, exitCode: number = ExitCode.userError, options?: ErrorOptions) {
    super(message, options);
    this.name = 'UserError';
    this.exitCode = exitCode;
  }
}
