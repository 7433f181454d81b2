// How kb opens a file at a line in the user's editor (kb review's `e`, kb add --edit): +LINE
// only to editors that take it, the form of VS Code and Sublime Text to those, the file
// alone to any other (a script given +14 took it for a file to open).
import { describe, expect, it } from 'vitest';
import { editorInvocation } from '../../src/kb/editor.ts';

const FILE = '/kb/notes/inbox/what-is-ttft.md';

describe('editorInvocation', () => {
  it('puts +LINE before the file for vi, vim, nano, emacs and the like, by base name, after the setting\'s own flags', () => {
    expect(editorInvocation('vi', 14, FILE)).toEqual({ command: 'vi', args: ['+14', FILE] });
    expect(editorInvocation('/usr/bin/nvim', 3, FILE)).toEqual({ command: '/usr/bin/nvim', args: ['+3', FILE] });
    expect(editorInvocation('nano', 7, FILE)).toEqual({ command: 'nano', args: ['+7', FILE] });
    expect(editorInvocation('emacsclient -t', 2, FILE)).toEqual({ command: 'emacsclient', args: ['-t', '+2', FILE] });
    expect(editorInvocation('  micro  ', 9, FILE)).toEqual({ command: 'micro', args: ['+9', FILE] });
  });

  it('opens VS Code with --goto FILE:LINE and Sublime Text with FILE:LINE', () => {
    expect(editorInvocation('code --wait', 14, FILE)).toEqual({ command: 'code', args: ['--wait', '--goto', `${FILE}:14`] });
    expect(editorInvocation('/snap/bin/codium -w', 5, FILE)).toEqual({ command: '/snap/bin/codium', args: ['-w', '--goto', `${FILE}:5`] });
    expect(editorInvocation('subl -w', 14, FILE)).toEqual({ command: 'subl', args: ['-w', `${FILE}:14`] });
  });

  it('gives any other editor the file alone, with no +LINE it would take for a file', () => {
    expect(editorInvocation('gedit', 14, FILE)).toEqual({ command: 'gedit', args: [FILE] });
    expect(editorInvocation('/home/me/bin/edit-note.sh --new-window', 14, FILE)).toEqual({ command: '/home/me/bin/edit-note.sh', args: ['--new-window', FILE] });
    // By the command's base name only: a folder named vim is not the editor.
    expect(editorInvocation('/opt/vim/bin/kate', 14, FILE)).toEqual({ command: '/opt/vim/bin/kate', args: [FILE] });
  });
});
