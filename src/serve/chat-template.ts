// GPT-2 was never trained on chats, so it has no chat template of its own. kb serve's is the
// plainest one that still reads as a transcript:
//
//   System: <text>\n\nUser: <text>\n\nAssistant: <text>\n\n ... Assistant:
//
// One line "<Role>: <content>" per message, messages separated by a blank line, and a final
// "Assistant:" for the model to continue. ("developer" is OpenAI's newer name for "system".)
// A client that wants the reply to end at the next turn sends `stop: ["\n\nUser:"]`.
import type { ChatMessage } from './request-schemas.ts';

const roleLabel: Record<ChatMessage['role'], string> = {
  system: 'System',
  developer: 'System',
  user: 'User',
  assistant: 'Assistant',
};

export function messageText(message: ChatMessage): string {
  if (message.content === null) return '';
  if (typeof message.content === 'string') return message.content;
  return message.content.map((part) => part.text).join('');
}

/** The prompt for `messages`; with `addGenerationPrompt` it ends with the assistant's cue. */
export function applyChatTemplate(messages: readonly ChatMessage[], addGenerationPrompt = true): string {
  const turns = messages.map((message) => `${roleLabel[message.role]}: ${messageText(message)}`);
  if (addGenerationPrompt) turns.push('Assistant:');
  return turns.join('\n\n');
}
