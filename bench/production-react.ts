// Imported first by benchmarks that render Ink screens in-process: kb itself runs React's
// production build (bin/kb.js), so the benchmark must measure that build too. React picks
// its build when it is first loaded, hence a module of its own, evaluated before the others.
process.env.NODE_ENV ??= 'production';
