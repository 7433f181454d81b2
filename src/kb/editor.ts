// How kb opens a file in the user's editor (kb review's `e` key, kb add --edit): $VISUAL,
// else $EDITOR, else vi; the setting split on spaces (so "code --wait" works), then +LINE
// and the file, which vi, vim, nano, emacs and micro all understand.

export function defaultEditor(): string {
  return process.env.VISUAL || process.env.EDITOR || 'vi';
}

export function editorInvocation(editor: string, line: number, file: string): { command: string; args: string[] } {
  const [command, ...flags] = editor.split(/\s+/).filter(Boolean);
  return { command, args: [...flags, `+${line}`, file] };
}
