// Which heading of a note introduces its answer: the rules of DESIGN.md, in English and Chinese.

/**
 * Numbering, bullets and emoji people put in front of a heading: `1.`, `一、`, `(a)`, `✅`.
 * Written with escapes, so that kb's start-up bundle stays ASCII (Node reads it several
 * times faster): bullets and dashes \u2022 • \u00B7 · \u2013 – \u2014 —; the Chinese
 * numerals 一二三四五六七八九十 and 百; full-width \uFF08 （ \uFF09 ） \uFF0E ． \u3001 、 \uFF1A ：.
 */
const PREFIX =
  /^(?:[\s\p{Extended_Pictographic}\p{Emoji_Component}\uFE0F\u200D#*>|\u2022\u00B7\-\u2013\u2014]|(?:[(\uFF08]?(?:\d+(?:\.\d+)*|[\u4E00\u4E8C\u4E09\u56DB\u4E94\u516D\u4E03\u516B\u4E5D\u5341\u767E]+|[ivxIVX]+|[A-Za-z])[)\uFF09]?[.\uFF0E\u3001:\uFF1A)]))+/u;

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
