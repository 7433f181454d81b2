// File names for new notes, made from their question: `What is TTFT?` -> `what-is-ttft`.

/** Long enough to tell questions apart in a listing, short enough for any file system and a terminal. */
export const SLUG_MAX_LENGTH = 60;

/**
 * Lowercase ASCII letters and digits, every other run of characters one `-`. Accents are
 * dropped (é -> e) rather than the letter; text with no ASCII letter or digit at all (a
 * Chinese question) gives ''. Longer slugs are cut at the last word boundary within
 * `maxLength` (mid-word only when the first word alone is longer).
 */
export function slugify(text: string, maxLength = SLUG_MAX_LENGTH): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  if (slug.length <= maxLength) return slug;
  const cut = slug.slice(0, maxLength + 1);
  const boundary = cut.lastIndexOf('-');
  return (boundary > 0 ? cut.slice(0, boundary) : slug.slice(0, maxLength)).replace(/-+$/, '');
}
