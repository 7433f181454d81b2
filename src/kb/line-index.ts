// Offsets to 1-based line numbers for one text, in O(log n) each after one O(n) pass: a
// count from offset 0 for every key made 100,000 frontmatter keys a quadratic minute.
// CRLF, LF and a lone CR each end a line (as in Markdown and editors).

export function lineIndex(text: string): (offset: number) => number {
  const starts = [0];
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 10 || (code === 13 && text.charCodeAt(i + 1) !== 10)) starts.push(i + 1);
  }
  return (offset) => {
    // The last line start at or before the offset (offsets past the end count as the end).
    const at = Math.min(offset, text.length);
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (starts[mid] <= at) low = mid;
      else high = mid - 1;
    }
    return low + 1;
  };
}
