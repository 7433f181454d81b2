// Which heading of a note introduces its answer: the rules of DESIGN.md, in English and Chinese.

/** Numbering, bullets and emoji people put in front of a heading: `1.`, `一、`, `(a)`, `✅`. */
const PREFIX = /^(?:[\s\p{Extended_Pictographic}\p{Emoji_Component}\uFE0F\u200D#*>|•·\-–—]|(?:[(（]?(?:\d+(?:\.\d+)*|[一二三四五六七八九十百]+|[ivxIVX]+|[A-Za-z])[)）]?[.．、:：)]))+/u;

/** Strongest: headings that say "answer". Chinese words count anywhere in the heading. */
const ANSWER_WORDS_ZH = ['答案', '回答', '解答'];
const ANSWER_WORDS_EN = /^(?:the\s+|short\s+|quick\s+|model\s+|reference\s+|standard\s+|sample\s+|interview\s+)?answers?\b/i;

/** Then headings that sum up. */
const SUMMARY_WORDS_ZH = ['总结', '结论', '小结', '结语', '要点', '摘要', '概要'];
const SUMMARY_WORDS_EN = /^(?:tl\s*;?\s*dr|summary|in\s+summary|in\s+short|key\s+takeaways?|takeaways?|conclusions?|bottom\s+line|recap)\b/i;

export function normalizeHeading(text: string): string {
  return text.replace(PREFIX, '').trim();
}

/** 0 for an answer heading, 1 for a summary heading, null for anything else. */
export function answerHeadingRank(text: string): 0 | 1 | null {
  const heading = normalizeHeading(text);
  if (heading === '') return null;
  if (ANSWER_WORDS_ZH.some((word) => heading.includes(word)) || ANSWER_WORDS_EN.test(heading)) return 0;
  if (SUMMARY_WORDS_ZH.some((word) => heading.includes(word)) || SUMMARY_WORDS_EN.test(heading)) return 1;
  return null;
}
