// kb-calc sources shared by the parser's and the quiz's tests.

/** The seed-004 TPOT question: TTFT 0.5 s, 100 tokens, 2.5 s in all -> 20 ms. */
export const TPOT_CALC_YAML = `vars:
  ttft: { min: 0.2, max: 1.0, step: 0.1 }
  n: { choose: [50, 100, 200] }
  total: ttft + n * 0.02
answer: (total - ttft) / n * 1000
unit: ms
tolerance: 1%
explain: TPOT = (total - TTFT) / n = ({total} - {ttft}) / {n} s = {answer} ms
`;
