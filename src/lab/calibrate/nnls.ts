// Non-negative least squares (Lawson and Hanson's active-set method) for the handful of
// columns a cost model has. A step cannot take negative time per token, so a term the data
// cannot support is held at zero instead of going negative to soak up noise elsewhere.

/** Solves the square system a x = b by Gaussian elimination with partial pivoting; null if singular. */
function solve(a: number[][], b: number[]): number[] | null {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]]);
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(m[r][col]) > Math.abs(m[pivot][col])) pivot = r;
    if (Math.abs(m[pivot][col]) < 1e-300) return null;
    [m[col], m[pivot]] = [m[pivot], m[col]];
    for (let r = col + 1; r < n; r++) {
      const f = m[r][col] / m[col][col];
      for (let c = col; c <= n; c++) m[r][c] -= f * m[col][c];
    }
  }
  const x = new Array<number>(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    let sum = m[r][n];
    for (let c = r + 1; c < n; c++) sum -= m[r][c] * x[c];
    x[r] = sum / m[r][r];
  }
  return x;
}

/** Least squares over the columns in `passive` only (the others fixed at zero). */
function restricted(rows: readonly number[][], y: readonly number[], passive: readonly number[], width: number): number[] | null {
  const k = passive.length;
  const ata = Array.from({ length: k }, () => new Array<number>(k).fill(0));
  const aty = new Array<number>(k).fill(0);
  for (let i = 0; i < rows.length; i++) {
    for (let p = 0; p < k; p++) {
      const vp = rows[i][passive[p]];
      aty[p] += vp * y[i];
      for (let q = 0; q < k; q++) ata[p][q] += vp * rows[i][passive[q]];
    }
  }
  const z = solve(ata, aty);
  if (!z) return null;
  const full = new Array<number>(width).fill(0);
  passive.forEach((col, p) => (full[col] = z[p]));
  return full;
}

/**
 * x >= 0 minimising |A x - y|. Columns are scaled to unit norm first so that terms whose
 * features differ by orders of magnitude (1 per step, thousands of attended pairs) are
 * treated alike; the answer is scaled back.
 */
export function nnls(rows: readonly number[][], y: readonly number[]): number[] {
  const width = rows[0]?.length ?? 0;
  const norms = Array.from({ length: width }, (_, c) => Math.sqrt(rows.reduce((sum, row) => sum + row[c] * row[c], 0)) || 1);
  const a = rows.map((row) => row.map((v, c) => v / norms[c]));
  let x = new Array<number>(width).fill(0);
  const passive: number[] = [];
  const gradient = () => {
    const g = new Array<number>(width).fill(0);
    for (let i = 0; i < a.length; i++) {
      let r = y[i];
      for (let c = 0; c < width; c++) r -= a[i][c] * x[c];
      for (let c = 0; c < width; c++) g[c] += a[i][c] * r;
    }
    return g;
  };
  for (let outer = 0; outer < 10 * width + 10; outer++) {
    const g = gradient();
    let best = -1;
    for (let c = 0; c < width; c++) if (!passive.includes(c) && g[c] > 1e-12 * (1 + Math.abs(g[c])) && (best < 0 || g[c] > g[best])) best = c;
    if (best < 0) break;
    passive.push(best);
    for (let inner = 0; inner < 10 * width + 10; inner++) {
      const z = restricted(a, y, passive, width);
      if (!z) {
        passive.pop();
        break;
      }
      if (passive.every((c) => z[c] > 0)) {
        x = z;
        break;
      }
      // Step from x towards z as far as feasibility allows, then drop the columns that hit zero.
      let alpha = 1;
      for (const c of passive) if (z[c] <= 0) alpha = Math.min(alpha, x[c] / (x[c] - z[c]));
      x = x.map((v, c) => v + alpha * (z[c] - v));
      for (let i = passive.length - 1; i >= 0; i--) if (x[passive[i]] <= 1e-15) {
        x[passive[i]] = 0;
        passive.splice(i, 1);
      }
    }
  }
  return x.map((v, c) => Math.max(0, v) / norms[c]);
}
