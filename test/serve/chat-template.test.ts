import { describe, expect, it } from 'vitest';
import { applyChatTemplate } from '../../src/serve/chat-template.ts';

describe('the GPT-2 chat template', () => {
  it('writes one "Role: text" line per message, a blank line between, and ends with the assistant cue', () => {
    const prompt = applyChatTemplate([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: [{ type: 'text', text: 'What is ' }, { type: 'text', text: 'TTFT?' }] },
      { role: 'assistant', content: 'Time to first token.' },
      { role: 'developer', content: 'Say more.' },
    ]);
    expect(prompt).toBe('System: Be brief.\n\nUser: What is TTFT?\n\nAssistant: Time to first token.\n\nSystem: Say more.\n\nAssistant:');
  });

  it('leaves the cue out when asked (as /tokenize add_generation_prompt=false)', () => {
    expect(applyChatTemplate([{ role: 'user', content: 'hi' }], false)).toBe('User: hi');
  });
});
