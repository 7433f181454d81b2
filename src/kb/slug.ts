// File names for new notes, made from their question: `What is TTFT?` -> `what-is-ttft`,
// `什么是首字延迟？` -> `什么是首字延迟` (a vault of Chinese notes names them by question too).
import stringWidth from 'string-width';

/** Terminal columns: long enough to tell questions apart in a listing, short enough for any file system and a terminal. */
export const SLUG_MAX_WIDTH = 60;

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * Letters and digits of any script (Latin lowercased, its accents dropped: é -> e), every
 * other run of characters one `-`, in NFC. Longer slugs are cut at the last `-` within
 * `maxWidth` columns (a CJK character takes two), mid-word only when the first word alone is
 * wider, and then between whole characters. '' when the question has no letter or digit.
 */
export function slugify(text: string, maxWidth = SLUG_MAX_WIDTH): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .normalize('NFC')
    .toLowerCase()
    // A combining mark with no letter or digit before it (an accent on punctuation) goes too.
    .replace(/(^|[^\p{L}\p{M}\p{N}])\p{M}+/gu, '$1')
    .replace(/[^\p{L}\p{M}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '');
  if (stringWidth(slug) <= maxWidth) return slug;
  let cut = '';
  let width = 0;
  for (const { segment } of graphemes.segment(slug)) {
    width += stringWidth(segment);
    if (width > maxWidth) break;
    cut += segment;
  }
  const next = slug.charAt(cut.length);
  if (next === '-') return cut;
  const boundary = cut.lastIndexOf('-');
  return boundary > 0 ? cut.slice(0, boundary) : cut;
}
